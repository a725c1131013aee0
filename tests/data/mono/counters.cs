using System;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;
// Counter samples of every value type: the runtime's own counters (int, uint, word, long, ulong,
// double, time interval), a string counter registered through Mono's embedding API, and a
// custom performance counter category (the named "perfcounters" section).
class CountersTest {
    // mono/utils/mono-counters.h; the mono binary exports it. A string counter's address
    // is the text itself (NUL-terminated, at most `size` bytes).
    [DllImport("__Internal")]
    static extern void mono_counters_register_with_size(string name, int type, IntPtr addr, int size);
    const int MONO_COUNTER_STRING = 6, MONO_COUNTER_RUNTIME = 1 << 13, MONO_COUNTER_VARIABLE = 1 << 30;
    const int Size = 32;
    static IntPtr text = Marshal.AllocHGlobal(Size);
    static void Set(string s) {
        byte[] b = Encoding.ASCII.GetBytes(s);
        Marshal.Copy(b, 0, text, b.Length);
        Marshal.WriteByte(text, b.Length, 0);
    }
    static void Main() {
        Set("start");
        mono_counters_register_with_size("profcodec test string",
            MONO_COUNTER_STRING | MONO_COUNTER_RUNTIME | MONO_COUNTER_VARIABLE, text, Size);
        if (!PerformanceCounterCategory.Exists("ProfcodecTest"))
            PerformanceCounterCategory.Create("ProfcodecTest", "profcodec test category",
                PerformanceCounterCategoryType.SingleInstance, "Ticks", "profcodec test counter");
        var pc = new PerformanceCounter("ProfcodecTest", "Ticks", false);
        string[] values = { "first value", "second", "" };
        for (int i = 0; i < values.Length; i++) {
            Thread.Sleep(1100);
            Set(values[i]);
            pc.RawValue = 5 * (i + 1);
        }
        Thread.Sleep(1100);
    }
}
