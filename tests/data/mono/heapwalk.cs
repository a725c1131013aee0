using System;
using System.Collections.Generic;
// Heap shots with roots, object moves, GC resizes and finalization: a small object graph that
// survives two full collections (moved out of the nursery by the first), and finalizable
// garbage. JIT helpers: interface calls through IMT slots shared by several methods (an
// interface of 24 methods, two implementations) make IMT trampolines.
class Node { public Node Left, Right; public string Name; public Node(string n) { Name = n; } }
class Finalizable { public int Id; public Finalizable(int id) { Id = id; } ~Finalizable() { Id = -1; } }
interface IMany {
    int M0(); int M1(); int M2(); int M3(); int M4(); int M5(); int M6(); int M7();
    int M8(); int M9(); int M10(); int M11(); int M12(); int M13(); int M14(); int M15();
    int M16(); int M17(); int M18(); int M19(); int M20(); int M21(); int M22(); int M23();
}
class Many : IMany {
    public int K;
    public int M0() { return K; } public int M1() { return K + 1; } public int M2() { return K + 2; }
    public int M3() { return K + 3; } public int M4() { return K + 4; } public int M5() { return K + 5; }
    public int M6() { return K + 6; } public int M7() { return K + 7; } public int M8() { return K + 8; }
    public int M9() { return K + 9; } public int M10() { return K + 10; } public int M11() { return K + 11; }
    public int M12() { return K + 12; } public int M13() { return K + 13; } public int M14() { return K + 14; }
    public int M15() { return K + 15; } public int M16() { return K + 16; } public int M17() { return K + 17; }
    public int M18() { return K + 18; } public int M19() { return K + 19; } public int M20() { return K + 20; }
    public int M21() { return K + 21; } public int M22() { return K + 22; } public int M23() { return K + 23; }
}
class Many2 : Many { }
class HeapWalkTest {
    static Node Build(int depth, string name) {
        var n = new Node(name);
        if (depth > 0) { n.Left = Build(depth - 1, name + "L"); n.Right = Build(depth - 1, name + "R"); }
        return n;
    }
    static void Garbage() { for (int i = 0; i < 20; i++) new Finalizable(i); }
    static int CallAll(IMany x) {
        return x.M0() + x.M1() + x.M2() + x.M3() + x.M4() + x.M5() + x.M6() + x.M7() + x.M8() + x.M9() +
            x.M10() + x.M11() + x.M12() + x.M13() + x.M14() + x.M15() + x.M16() + x.M17() + x.M18() +
            x.M19() + x.M20() + x.M21() + x.M22() + x.M23();
    }
    static void Main() {
        var root = Build(4, "root");
        var table = new Dictionary<string, Node> { { "root", root }, { "left", root.Left } };
        var big = new object[40];
        for (int i = 0; i < big.Length; i++) big[i] = new Node("n" + i);
        Garbage();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        int calls = CallAll(new Many()) + CallAll(new Many2 { K = 1 });
        Console.WriteLine(table.Count + big.Length + root.Name.Length + calls);
    }
}
