using System;
using System.Collections.Generic;
using System.Reflection.Emit;
using System.Runtime.InteropServices;
using System.Threading;
// Allocations, GC handles of every type, exception clauses of every kind (catch, filter,
// finally, and a fault block from a dynamic method), monitor contention that is then
// acquired and contention that fails. Recorded with and without backtraces.
class EventsTest {
    static readonly object gate = new object();
    static Action<int> WithFault() {
        var dm = new DynamicMethod("WithFault", typeof(void), new[] { typeof(int) }, typeof(EventsTest).Module);
        var il = dm.GetILGenerator();
        il.BeginExceptionBlock();
        il.Emit(OpCodes.Ldstr, "fault");
        il.Emit(OpCodes.Newobj, typeof(InvalidOperationException).GetConstructor(new[] { typeof(string) }));
        il.Emit(OpCodes.Throw);
        il.BeginFaultBlock();
        il.EndExceptionBlock();
        il.Emit(OpCodes.Ret);
        return (Action<int>)dm.CreateDelegate(typeof(Action<int>));
    }
    static void Main() {
        var arrays = new List<int[]>();
        for (int i = 0; i < 16; i++) arrays.Add(new int[i]);
        foreach (var t in new[] { GCHandleType.Weak, GCHandleType.WeakTrackResurrection, GCHandleType.Normal, GCHandleType.Pinned })
            GCHandle.Alloc(new byte[8], t).Free();
        try {
            try { throw new InvalidOperationException("filtered"); }
            finally { arrays.Clear(); }
        } catch (InvalidOperationException e) when (e.Message == "filtered") { }
        try { WithFault()(1); } catch (InvalidOperationException) { }
        var holder = new Thread(() => { lock (gate) Thread.Sleep(300); });
        holder.Start();
        Thread.Sleep(50);
        bool got = Monitor.TryEnter(gate, 10);   // contention, then fail
        if (got) Monitor.Exit(gate);
        lock (gate) { }                          // contention, then acquired
        holder.Join();
        Console.WriteLine("tryenter=" + got);
    }
}
