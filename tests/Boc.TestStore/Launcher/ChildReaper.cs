using System.Diagnostics;

namespace Boc.TestStore;

/// <summary>
/// Kills the child processes a process started when it ends, however it ends (a crash, SIGKILL, a test host stopped by
/// its runner): a shell started once, which holds the list of live children's pids and, when its standard input
/// closes (the operating system closes it with its parent), kills every child still listed. SIGKILL also ends a child
/// the parent had stopped with SIGSTOP, which no pipe or signal of its own could wake. Unix only; elsewhere a no-op
/// (the Garnet host also ends when its own standard input closes).
/// </summary>
public static class ChildReaper
{
    // Pids are files in a folder of the shell's own, so a pid is removed without rewriting a list.
    private const string Script = """
        trap '' INT HUP TERM PIPE
        dir=$(mktemp -d) || exit 1
        while read -r op pid; do
          case "$op" in
            +) : > "$dir/$pid" ;;
            -) rm -f "$dir/$pid" ;;
          esac
        done
        for f in "$dir"/*; do
          [ -e "$f" ] && kill -KILL "${f##*/}" 2>/dev/null
        done
        rm -rf "$dir"
        """;

    private static readonly object s_gate = new();
    private static StreamWriter? s_shell;
    private static bool s_failed;

    /// <summary>Adds a child: it is killed if this process ends while the child is still listed.</summary>
    public static void Track(int pid) => Send($"+ {pid}");

    /// <summary>Removes a child that has exited or been killed, so its pid, once reused, is never killed.</summary>
    public static void Forget(int pid) => Send($"- {pid}");

    private static void Send(string line)
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        lock (s_gate)
        {
            if (s_shell is null && !s_failed)
            {
                var start = new ProcessStartInfo("/bin/sh") { RedirectStandardInput = true, UseShellExecute = false };
                start.ArgumentList.Add("-c");
                start.ArgumentList.Add(Script);
                try
                {
                    s_shell = Process.Start(start)!.StandardInput;
                    s_shell.AutoFlush = true;
                }
                catch (System.ComponentModel.Win32Exception)
                {
                    s_failed = true;
                }
            }

            s_shell?.WriteLine(line);
        }
    }
}
