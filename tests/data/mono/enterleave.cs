using System;
// Method enter and leave events, and leaves by an exception: Fail throws three frames below
// the handler, so Fail, Middle and Outer are left by the exception.
class EnterLeaveTest {
    static int Fib(int n) { return n < 2 ? n : Fib(n - 1) + Fib(n - 2); }
    static void Fail(int depth) { if (depth == 0) throw new ArgumentException("deep"); Fail(depth - 1); }
    static void Middle() { Fail(2); }
    static void Outer() { try { Middle(); } finally { Console.WriteLine("unwinding"); } }
    static void Main() {
        Console.WriteLine(Fib(12));
        try { Outer(); } catch (ArgumentException e) { Console.WriteLine(e.Message); }
    }
}
