// plugin.dll: loaded by unload.exe into a child application domain only.
public class Plugin {
    public static int Work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
}
