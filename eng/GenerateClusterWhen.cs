#:property RunAnalyzers=false
// Generates distributed Boc's WhenAsync overload family (IBocCluster and BocCluster), written once here.
// Run from the repository root:   dotnet run eng/GenerateClusterWhen.cs
// The output (src/Boc.Orleans/Generated/*.g.cs) is committed; CI checks it is up to date (see .ci/run).
//
// Shapes: 1, 2 or 3 single cowns (one ClusterAcquirable<Ti> each, types may differ), and a list of cowns of one state
// type. Four body forms per shape: Action (Task), Func returning TResult (Task<TResult>), Func returning Task (Task),
// Func returning Task<TResult> (Task<TResult>). Each form comes without and with a CancellationToken (two overloads, as
// in-process Boc's WhenAsync: optional parameters on overloads break binary compatibility, RS0026). The three simpler
// forms adapt their body to the last one, and every form validates and builds its plan before anything is sent.

using System.Text;

string root = args.Length > 0 ? args[0] : Directory.GetCurrentDirectory();
string outDir = Path.Combine(root, "src", "Boc.Orleans", "Generated");
Directory.CreateDirectory(outDir);

string[] ordinals = ["first", "second", "third"];
var api = new StringBuilder();
var impl = new StringBuilder();
Header(api);
api.AppendLine("public partial interface IBocCluster");
api.AppendLine("{");
Header(impl);
impl.AppendLine("public sealed partial class BocCluster");
impl.AppendLine("{");

bool firstMember = true;
foreach (int arity in new[] { 1, 2, 3, 0 })
{
    bool list = arity == 0;
    foreach (Form form in Enum.GetValues<Form>())
    {
        foreach (bool token in new[] { false, true })
        {
            if (!firstMember)
            {
                api.AppendLine();
                impl.AppendLine();
            }

            firstMember = false;
            Emit(arity, list, form, token);
        }
    }
}

api.AppendLine("}");
impl.AppendLine("}");
File.WriteAllText(Path.Combine(outDir, "IBocCluster.When.g.cs"), api.ToString());
File.WriteAllText(Path.Combine(outDir, "BocCluster.When.g.cs"), impl.ToString());
Console.WriteLine($"wrote {outDir}");

void Emit(int arity, bool list, Form form, bool token)
{
    bool result = form is Form.Result or Form.AsyncResult;
    bool async = form is Form.Async or Form.AsyncResult;
    string[] types = list ? ["T"] : [.. Enumerable.Range(1, arity).Select(i => $"T{i}")];
    string stateArgs = list ? "IReadOnlyList<T>" : string.Join(", ", types);
    string typeParams = string.Join(", ", result ? [.. types, "TResult"] : types);
    string bodyReturn = form switch { Form.Action => "", Form.Result => "TResult", Form.Async => "Task", _ => "Task<TResult>" };
    string bodyType = form == Form.Action ? $"Action<{stateArgs}>" : $"Func<{stateArgs}, {bodyReturn}>";
    string returns = result ? "Task<TResult>" : "Task";
    string cownParams = list ? "IReadOnlyList<ClusterAcquirable<T>> cowns" : string.Join(", ", Enumerable.Range(1, arity).Select(i => $"ClusterAcquirable<T{i}> c{i}"));
    string signature = $"{returns} WhenAsync<{typeParams}>({cownParams}, {bodyType} body{(token ? ", CancellationToken cancellationToken" : "")})";
    string[] constraints = [.. types.Select(t => $"where {t} : class, new()")];

    // The docs, once per form.
    string what = list ? "a list of cowns (duplicates acquired once)" : arity == 1 ? "1 cown" : $"{arity} cowns";
    api.AppendLine($"    /// <summary>Spawns a behaviour over {what} and returns when it has run and committed.</summary>");
    if (list)
    {
        api.AppendLine("    /// <typeparam name=\"T\">The type of the cowns' states.</typeparam>");
    }
    else
    {
        for (int i = 0; i < arity; i++)
        {
            api.AppendLine($"    /// <typeparam name=\"T{i + 1}\">The type of the {ordinals[i]} cown's state.</typeparam>");
        }
    }

    if (result)
    {
        api.AppendLine("    /// <typeparam name=\"TResult\">The type of the body's result.</typeparam>");
    }

    if (list)
    {
        api.AppendLine("    /// <param name=\"cowns\">The cowns (or <see cref=\"BocCluster.Read{T}(ClusterCown{T})\"/> requests); at least one.</param>");
    }
    else
    {
        for (int i = 0; i < arity; i++)
        {
            api.AppendLine($"    /// <param name=\"c{i + 1}\">The {ordinals[i]} cown, or a <see cref=\"BocCluster.Read{{T}}(ClusterCown{{T}})\"/> request.</param>");
        }
    }

    string receives = list ? "receives their states, in the order of <paramref name=\"cowns\"/>" : "receives the cowns' states";
    api.AppendLine(async
        ? $"    /// <param name=\"body\">The asynchronous body: {receives}; the cowns stay held until its task completes.</param>"
        : $"    /// <param name=\"body\">The body: {receives}, and runs at the caller once every cown is granted.</param>");
    if (token)
    {
        api.AppendLine("    /// <param name=\"cancellationToken\">Withdraws the behaviour if canceled before it holds every cown: the body never runs. Once the body has started, it runs to the end and commits.</param>");
    }

    api.AppendLine(result
        ? "    /// <returns>The body's result, once its writes are committed.</returns>"
        : "    /// <returns>A task that completes once the body has run and its writes are committed.</returns>");
    api.AppendLine("    /// <exception cref=\"ArgumentNullException\">A cown or the body is null.</exception>");
    api.AppendLine(list
        ? "    /// <exception cref=\"ArgumentException\">A cown belongs to another cluster connection, or the list is empty or holds null.</exception>"
        : "    /// <exception cref=\"ArgumentException\">A cown belongs to another cluster connection.</exception>");
    api.AppendLine("    /// <exception cref=\"InvalidOperationException\">A body this call runs inside holds one of the cowns (and one of the two writes it): the behaviour would wait for that body.</exception>");
    if (token)
    {
        api.AppendLine("    /// <exception cref=\"OperationCanceledException\">The token was canceled before the behaviour held every cown; nothing was written.</exception>");
    }

    api.AppendLine("    /// <exception cref=\"BocClusterException\">Cowns were unavailable for every attempt, or the idempotency key was fenced by a lookup that answered NotCommitted; nothing was written.</exception>");
    api.AppendLine("    /// <exception cref=\"BocClusterOutcomeUnknownException\">The coordinator cown could not be reached to learn the commit's outcome: the writes happened everywhere or nowhere.</exception>");
    api.AppendLine("    /// <exception cref=\"BocClusterDuplicateException\">Spawned through <see cref=\"WithIdempotencyKey(string)\"/> with a key that already committed: not run.</exception>");
    api.AppendLine($"    {signature}");
    for (int i = 0; i < constraints.Length; i++)
    {
        api.AppendLine($"        {constraints[i]}{(i == constraints.Length - 1 ? ";" : "")}");
    }

    // The implementation: validate and plan, then adapt the body to the asynchronous result form.
    impl.AppendLine("    /// <inheritdoc/>");
    impl.AppendLine($"    public {signature}");
    foreach (string constraint in constraints)
    {
        impl.AppendLine($"        {constraint}");
    }

    impl.AppendLine("    {");
    impl.AppendLine("        ArgumentNullException.ThrowIfNull(body);");
    impl.AppendLine("        var plan = new SpawnPlan(this);");
    if (list)
    {
        impl.AppendLine("        plan.AddAll(cowns, nameof(cowns));");
    }
    else
    {
        for (int i = 1; i <= arity; i++)
        {
            impl.AppendLine($"        plan.Add(c{i}, nameof(c{i}));");
        }
    }

    impl.AppendLine("        plan.Build();");
    string call = list ? "body(plan.Args<T>())" : $"body({string.Join(", ", Enumerable.Range(0, arity).Select(i => $"plan.Arg<T{i + 1}>({i})"))})";
    string adapted = form switch
    {
        Form.Action => $"() =>\n        {{\n            {call};\n            return NoResult;\n        }}",
        Form.Result => $"() => Task.FromResult({call})",
        Form.Async => $"async () =>\n        {{\n            await {call}.ConfigureAwait(true);\n            return null;\n        }}",
        _ => $"() => {call}",
    };
    string run = result ? "RunAsync" : "RunAsync<object?>";
    impl.AppendLine($"        return {run}(plan, {adapted}, {(token ? "cancellationToken" : "CancellationToken.None")});");
    impl.AppendLine("    }");
}

static void Header(StringBuilder sb)
{
    sb.AppendLine("// <auto-generated>");
    sb.AppendLine("// Generated by eng/GenerateClusterWhen.cs; do not edit. Run: dotnet run eng/GenerateClusterWhen.cs");
    sb.AppendLine("// </auto-generated>");
    sb.AppendLine("#nullable enable");
    sb.AppendLine();
    sb.AppendLine("namespace Boc.Orleans;");
    sb.AppendLine();
}

enum Form
{
    Action,
    Result,
    Async,
    AsyncResult,
}
