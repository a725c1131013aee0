// Run from its AOT image (mono --aot aot.exe writes aot.exe.so beside it): at shutdown the log
// profiler writes the entry image's AOT id.
class AotTest {
    static int Main() { return System.Environment.ProcessorCount > 0 ? 0 : 1; }
}
