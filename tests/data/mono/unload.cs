using System;
using System.Reflection;
// Metadata unloads: an image opened in the root domain only to read its assembly name (closed
// at once), and a child domain that loads plugin.dll and is then unloaded with it.
public class Loader : MarshalByRefObject {
    public int Run(string path) {
        var work = Assembly.LoadFrom(path).GetType("Plugin").GetMethod("Work");
        return (int)work.Invoke(null, new object[] { 10 });
    }
}
class UnloadTest {
    static void Main() {
        Console.WriteLine(AssemblyName.GetAssemblyName("plugin.dll").Name);
        var child = AppDomain.CreateDomain("child");
        var loader = (Loader)child.CreateInstanceAndUnwrap(typeof(Loader).Assembly.FullName, "Loader");
        Console.WriteLine(loader.Run("plugin.dll"));
        AppDomain.Unload(child);
    }
}
