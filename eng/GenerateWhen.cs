#:property RunAnalyzers=false
// Generates the When/WhenAsync overload family and the behaviour classes behind it.
// Run from the repository root:   dotnet run eng/GenerateWhen.cs
// The output is committed; CI checks it is up to date (see .ci/run). Per shape, two files: When.<shape>.g.cs (the
// public forms on BocRuntime, Behaviours and BocBatch) and Kinds.<shape>.g.cs (the behaviour classes behind them);
// the doc text they share is written once, in When.docs.xml, and included.
//
// Shapes: fixed arity 0..8 (one IAcquirable<Ti> per cown), and dynamic sets (an IReadOnlyList<IAcquirable<TElement>>
// after 0..2 single cowns). For each shape there are six entry points:
//   When(…, Action<…>)                       fire-and-forget, synchronous body
//   When(…, Func<…, Task>)                   fire-and-forget, asynchronous body (cowns held until its task completes)
//   WhenAsync(…, Action<…>)                  completion awaitable
//   WhenAsync(…, Func<…, Task>)              completion awaitable, asynchronous body
//   WhenAsync<…, TResult>(…, Func<…, TResult>)        result awaitable
//   WhenAsync<…, TResult>(…, Func<…, Task<TResult>>)  result awaitable, asynchronous body
// Each also has a state-passing twin taking (…, body, state) with the state as the body's last parameter, so that a
// `static` lambda spawns without allocating (the .NET convention of ThreadPool.QueueUserWorkItem and GetOrAdd: the
// state follows the delegate). The forms without state reuse the same behaviour classes, passing the user's delegate
// as the state to a cached static adapter.
// The docs are written once: a shape's on its BocRuntime forms without state or token (the forms with a state or a token
// inherit them and add what differs; the static Behaviours forms inherit them whole; the BocBatch forms their
// parameters and return value: <inheritdoc cref="…"/>), and the text every shape shares in When.docs.xml
// (<include file="When.docs.xml" …/>).
// The fire-and-forget and result forms have different names on purpose: with one name, C# would bind
// `c => c.Count++` to the value-returning overload and every cheap spawn would allocate a result.

using System.Text;

// Why the fixed arities stop at 8: each one costs 60 public overloads (24 on BocRuntime, 24 on Behaviours, 12 on
// BocBatch), each with its PublicAPI entry, plus 6 behaviour classes, so the generated source, the assembly and the
// set the compiler (and the IDE) sorts through at every When/WhenAsync call grow with it; eight distinct cowns held
// together is already far past what a behaviour usually needs (the transfer between two accounts is the paper's
// example). A behaviour needing more takes the dynamic-set forms, which accept any number up to
// BocRuntime.MaxCownsPerBehaviour, for the price of one state type shared by the set and a list.
const int MaxArity = 8;
const int MaxLeadingSingles = 2;

string root = args.Length > 0 ? args[0] : Directory.GetCurrentDirectory();
string outDir = Path.Combine(root, "src", "Boc", "Generated");
Directory.CreateDirectory(outDir);

// Every output is written afresh: a file of a shape that no longer exists must not linger (CI's staleness check sees
// a deleted or an added file as well as a changed one).
foreach (string stale in Directory.EnumerateFiles(outDir, "*.g.cs").Concat(Directory.EnumerateFiles(outDir, "*.docs.xml")))
{
    File.Delete(stale);
}

var shapes = new List<Shape>();
for (int n = 0; n <= MaxArity; n++)
{
    shapes.Add(new Shape(n, Dynamic: false));
}

for (int k = 0; k <= MaxLeadingSingles; k++)
{
    shapes.Add(new Shape(k, Dynamic: true));
}

// Per shape, two files: its public forms (When.<shape>.g.cs: BocRuntime's, Behaviours', BocBatch's) and the behaviour
// classes behind them (Kinds.<shape>.g.cs). The doc text they repeat is written once, in When.docs.xml, and included.
foreach (Shape shape in shapes)
{
    var when = new StringBuilder();
    Header(when, inheritsDocs: true);
    when.AppendLine("public sealed partial class BocRuntime");
    when.AppendLine("{");
    EmitForms(when, shape, isStatic: false);
    when.AppendLine("}");
    when.AppendLine();
    when.AppendLine("public static partial class Behaviours");
    when.AppendLine("{");
    EmitForms(when, shape, isStatic: true);
    when.AppendLine("}");
    when.AppendLine();
    when.AppendLine("public sealed partial class BocBatch");
    when.AppendLine("{");
    foreach (Kind kind in Enum.GetValues<Kind>())
    {
        EmitBatchEntryPoint(when, shape, kind, withState: false);
        EmitBatchEntryPoint(when, shape, kind, withState: true);
    }

    when.AppendLine("}");
    Write($"When.{shape.Name}.g.cs", when);

    var kinds = new StringBuilder();
    Header(kinds);
    foreach (BodyClass body in Enum.GetValues<BodyClass>())
    {
        EmitBehaviourClass(kinds, shape, body);
    }

    Write($"Kinds.{shape.Name}.g.cs", kinds);
}

File.WriteAllText(Path.Combine(outDir, DocText.FileName), DocText.Render().ReplaceLineEndings("\n"));
Console.WriteLine($"wrote {Path.GetRelativePath(root, Path.Combine(outDir, DocText.FileName))}");
return 0;

// One shape's forms on BocRuntime (isStatic false) or Behaviours (true): When/WhenAsync, then TryWhen.
void EmitForms(StringBuilder sb, Shape shape, bool isStatic)
{
    foreach (Kind kind in Enum.GetValues<Kind>())
    {
        foreach (bool withState in new[] { false, true })
        {
            // The awaitable forms also take a trailing CancellationToken (withdrawal; see Protocol/Behaviour.Cancellation.cs).
            bool[] tokens = kind is Kind.Fire or Kind.FireAsync ? [false] : [false, true];
            foreach (bool withToken in tokens)
            {
                EmitEntryPoint(sb, shape, kind, withState, withToken, isStatic);
            }
        }
    }

    foreach (Kind kind in new[] { Kind.Fire, Kind.FireAsync })
    {
        EmitTryWhen(sb, shape, kind, withState: false, isStatic);
        EmitTryWhen(sb, shape, kind, withState: true, isStatic);
    }
}

void Write(string name, StringBuilder text)
{
    string path = Path.Combine(outDir, name);
    File.WriteAllText(path, text.ToString().ReplaceLineEndings("\n"));
    Console.WriteLine($"wrote {Path.GetRelativePath(root, path)}");
}

// The runtime's one- and two-cown, synchronous, fire-and-forget forms spawn through BocRuntime.SpawnOne and SpawnPair,
// which may append the body to the behaviour at the cowns' tail (Appending/Behaviour.Appending.cs).
static bool Appendable(Shape shape, Kind kind) => kind == Kind.Fire && shape.Singles is 1 or 2 && !shape.Dynamic;

static string AppendableSpawn(Shape shape) => shape.Singles == 1 ? "SpawnOne" : "SpawnPair";

static void Header(StringBuilder sb, bool inheritsDocs = false)
{
    sb.AppendLine("// <auto-generated>");
    sb.AppendLine("// Generated by eng/GenerateWhen.cs. Do not edit: change the generator and run `dotnet run eng/GenerateWhen.cs`.");
    sb.AppendLine("// </auto-generated>");
    sb.AppendLine("#nullable enable");
    if (inheritsDocs)
    {
        // A form with a state or a token documents only what it adds and inherits the rest of its docs from the form
        // without them (<inheritdoc cref path>), which the compiler does not expand when it checks that every
        // parameter is documented; documentation tools and the IDE do.
        sb.AppendLine("#pragma warning disable CS1573, CS1712");
    }

    sb.AppendLine();
    sb.AppendLine("using System.Runtime.CompilerServices;");
    sb.AppendLine();
    sb.AppendLine("namespace Boc;");
    sb.AppendLine();
}

// The docs of a form that says the same as the BocRuntime form with this name, type parameters and parameters: an
// <inheritdoc/> naming that form exactly (the compiler checks the cref), so the text exists once in the output.
// `path` picks the inherited elements (all of them without it).
static string InheritDocFromRuntime(string name, string generic, List<string> parameters, string? path = null)
{
    string select = path is null ? "" : $" path=\"{path}\"";
    return $"    /// <inheritdoc cref=\"{RuntimeCref(name, generic, parameters)}\"{select}/>";
}

// "IAcquirable<T1> c1" -> "IAcquirable{T1}": a cref names the parameter types, with braces for type arguments.
static string RuntimeCref(string name, string generic, List<string> parameters)
{
    string types = string.Join(", ", parameters.Select(p => p[..p.LastIndexOf(' ')]));
    return $"BocRuntime.{name}{generic}({types})".Replace('<', '{').Replace('>', '}');
}

// The static Behaviours form: forwards to the same method on BocRuntime.Default.
static void EmitForwardToDefault(StringBuilder sb, Shape shape, string name, bool withState, bool withToken)
{
    var forwarded = shape.CownArguments.Append("body").ToList();
    if (withState)
    {
        forwarded.Add("state");
    }

    if (withToken)
    {
        forwarded.Add("cancellationToken");
    }

    sb.AppendLine($"        => BocRuntime.Default.{name}({string.Join(", ", forwarded)});");
    sb.AppendLine();
}

// The constraints of a generic form or class, on one line (every cown's state type is a reference type).
static void EmitConstraints(StringBuilder sb, Shape shape, string indent)
{
    if (shape.StateTypes.Any())
    {
        sb.AppendLine(indent + string.Join(" ", shape.StateTypes.Select(t => $"where {t} : class")));
    }
}

// The type parameter and parameter docs of a spawn form's cowns (the runtime's base forms, TryWhen's).
static void EmitCownDocs(StringBuilder sb, Shape shape)
{
    foreach (string t in shape.StateTypes)
    {
        sb.AppendLine(t == "TElement"
            ? "    /// <typeparam name=\"TElement\">The state type of the cowns in <paramref name=\"cowns\"/>.</typeparam>"
            : $"    /// <typeparam name=\"{t}\">The state type of <paramref name=\"c{t[1..]}\"/>.</typeparam>");
    }
}

static void EmitCownParameterDocs(StringBuilder sb, Shape shape)
{
    for (int i = 1; i <= shape.Singles; i++)
    {
        sb.AppendLine($"    /// <param name=\"c{i}\">{DocText.Para("param-cown", "A cown to acquire (or <see cref=\"Cown.Read{T}(Cown{T})\"/> of one, to only read it).")}</param>");
    }

    if (shape.Dynamic)
    {
        sb.AppendLine($"    /// <param name=\"cowns\">{DocText.Para("param-cowns", "More cowns to acquire; the list is copied before this method returns, and the body receives their states in the same order.")}</param>");
    }
}

// The docs a form with state adds to those it inherits: the state's type, the body (which also receives the state),
// and the state, whose text says why to pass one (runtime forms) or only what it is (batch forms).
static void EmitStateDocs(StringBuilder sb, Shape shape, Kind kind, bool batch)
{
    sb.AppendLine("    /// <typeparam name=\"TState\">The type of <paramref name=\"state\"/>.</typeparam>");
    sb.AppendLine($"    /// <param name=\"body\">{BodyDoc(shape, kind, withState: true)}</param>");
    sb.AppendLine(batch
        ? $"    /// <param name=\"state\">{DocText.Para("param-state-batch", "A value handed to the body as its last argument; passing what the body needs through it to a <c>static</c> lambda avoids a closure.")}</param>"
        : $"    /// <param name=\"state\">{DocText.Para("param-state", "A value handed to the body as its last argument. Passing what the body needs through it to a <c>static</c> lambda avoids a closure: with a behaviour object reused from the runtime's pool, such a spawn allocates nothing in steady state.")}</param>");
}

// The exceptions of a spawn form, a TryWhen form or a batch form (one set per shape family, written once).
static string Exceptions(Shape shape, string form)
{
    string family = shape.Dynamic ? "set" : shape.Singles == 0 ? "none" : "cowns";
    string nulls = shape.Dynamic
        ? "<paramref name=\"cowns\"/>, a single cown, or <paramref name=\"body\"/> is null"
        : shape.Singles == 0 ? "<paramref name=\"body\"/> is null" : "a cown or <paramref name=\"body\"/> is null";
    string nothingAdded = form == "batch" ? "; nothing is added" : "";
    var elements = new List<string> { $"<exception cref=\"ArgumentNullException\">{nulls}{nothingAdded}.</exception>" };
    if (shape.Dynamic)
    {
        elements.Add($"<exception cref=\"ArgumentException\"><paramref name=\"cowns\"/> contains null, or more than <see cref=\"BocRuntime.MaxCownsPerBehaviour\"/> cowns are requested in all{nothingAdded}.</exception>");
    }

    if (form == "batch")
    {
        elements.Add("<exception cref=\"InvalidOperationException\">The batch was already spawned or abandoned (its <c>Batch</c> call has returned or thrown).</exception>");
        return DocText.Elements($"exceptions-batch-{family}", elements);
    }

    elements.Add("<exception cref=\"ObjectDisposedException\">The runtime has been disposed.</exception>");
    if (form != "try")
    {
        string waitMode = form == "token"
            ? "In <see cref=\"BocFullMode.Wait\"/> mode the call blocks until there is room instead, or until <paramref name=\"cancellationToken\"/> is canceled."
            : "In <see cref=\"BocFullMode.Wait\"/> mode the call blocks until there is room instead.";
        elements.Add($"<exception cref=\"BocRuntimeFullException\">Called from outside the runtime while it has <see cref=\"BocRuntimeOptions.MaxPendingBehaviours\"/> behaviours pending, with <see cref=\"BocRuntimeOptions.FullMode\"/> <see cref=\"BocFullMode.Throw\"/>; nothing was enqueued. {waitMode}</exception>");
    }

    return DocText.Elements($"exceptions-{form}-{family}", elements);
}

// What a form's awaitable completes with (awaitable kinds only).
static string ReturnsDoc(Kind kind) => kind is Kind.Completion or Kind.CompletionAsync
    ? DocText.Para("returns-completion", "An awaitable that completes when the behaviour has finished and released its cowns, or fails with the body's exception. Await it once.")
    : DocText.Para("returns-result", "An awaitable that completes with the body's result once the behaviour has released its cowns, or fails with the body's exception. Await it once.");

// The parts of a spawn form's signature that the runtime's forms and a batch's share.
static (bool Result, bool Awaitable, string Name, string Generic, string BodyType, string ReturnType, List<string> Parameters) Signature(
    Shape shape, Kind kind, bool withState)
{
    bool result = kind is Kind.Result or Kind.AsyncResult;
    bool awaitable = kind is not (Kind.Fire or Kind.FireAsync);
    string name = awaitable ? "WhenAsync" : "When";
    var typeParams = new List<string>(shape.StateTypes);
    if (withState)
    {
        typeParams.Add("TState");
    }

    if (result)
    {
        typeParams.Add("TResult");
    }

    string generic = typeParams.Count == 0 ? "" : $"<{string.Join(", ", typeParams)}>";
    string bodyType = BodyType(shape, kind, withState ? "TState" : null);
    string returnType = kind switch
    {
        Kind.Fire or Kind.FireAsync => "void",
        Kind.Completion or Kind.CompletionAsync => "ValueTask",
        _ => "ValueTask<TResult>",
    };
    var parameters = new List<string>(shape.CownParameters) { $"{bodyType} body" };
    if (withState)
    {
        parameters.Add("TState state");
    }

    return (result, awaitable, name, generic, bodyType, returnType, parameters);
}

static void EmitArgumentChecks(StringBuilder sb, Shape shape)
{
    sb.AppendLine("    {");
    for (int i = 1; i <= shape.Singles; i++)
    {
        sb.AppendLine($"        ArgumentNullException.ThrowIfNull(c{i});");
    }

    sb.AppendLine("        ArgumentNullException.ThrowIfNull(body);");
    if (shape.Dynamic)
    {
        // Copied and checked into the thread's scratch before anything is admitted or rented (CownSets.Stage).
        sb.AppendLine($"        Span<IAcquirable<TElement>> list = CownSets.Stage(cowns, {shape.Singles});");
    }
}

void EmitEntryPoint(StringBuilder sb, Shape shape, Kind kind, bool withState, bool withToken, bool isStatic)
{
    (bool result, bool awaitable, string name, string generic, string bodyType, string returnType, List<string> parameters) =
        Signature(shape, kind, withState);

    if (withToken)
    {
        parameters.Add("CancellationToken cancellationToken");
    }

    if (isStatic)
    {
        sb.AppendLine(InheritDocFromRuntime(name, generic, parameters));
    }
    else
    {
        EmitEntryPointDocs(sb, shape, kind, withState, withToken, result);
    }

    string modifiers = isStatic ? "public static" : "public";
    sb.AppendLine($"    {modifiers} {returnType} {name}{generic}({string.Join(", ", parameters)})");
    EmitConstraints(sb, shape, "        ");

    if (isStatic)
    {
        EmitForwardToDefault(sb, shape, name, withState, withToken);
        return;
    }

    EmitArgumentChecks(sb, shape);

    // Without state, the user's delegate becomes the state of a cached static adapter.
    BodyClass bodyClass = BodyClassOf(kind);
    string stateType = withState ? "TState" : BodyType(shape, kind, null);
    string cls = ClassName(shape, bodyClass, stateType);
    var initArgs = new List<string> { "this" };
    initArgs.AddRange(shape.CownArguments.Select(a => a == "cowns" ? "list" : a));
    if (withState)
    {
        initArgs.Add("body");
        initArgs.Add("state");
    }
    else
    {
        var xs = shape.BodyArgumentNames.ToList();
        string adapterParams = string.Join(", ", xs.Append("f"));
        initArgs.Add($"static ({adapterParams}) => f({string.Join(", ", xs)})");
        initArgs.Add("body");
    }


    // Admission before renting: a spawn refused (or waiting) for a full runtime holds no pooled object.
    sb.AppendLine(withToken ? "        bool admitted = Admit(cancellationToken);" : "        Admit();");
    if (Appendable(shape, kind))
    {
        // The kinds that may ride in the behaviour at their cowns' tail (Appending/Behaviour.Appending.cs).
        sb.AppendLine($"        {AppendableSpawn(shape)}({string.Join(", ", initArgs.Skip(1))});");
        sb.AppendLine("    }");
        sb.AppendLine();
        return;
    }

    // The thread's runtime state, looked up once for the pool, the scheduler and the count (BocThread says why).
    sb.AppendLine("        BocThread thread = BocThread.Current;");
    sb.AppendLine($"        {cls} behaviour = BehaviourPool<{cls}>.Rent(thread);");
    sb.AppendLine($"        behaviour.Init({string.Join(", ", initArgs)});");
    if (shape.Dynamic)
    {
        // The behaviour has its own copy now: the scratch keeps no cown alive.
        sb.AppendLine("        list.Clear();");
    }

    if (awaitable)
    {
        // The token must be read before the behaviour is published: once enqueued it may run, complete and be reused.
        sb.AppendLine($"        {returnType} completion = behaviour.{(result ? "Completion" : "VoidCompletion")};");
        sb.AppendLine(withToken ? "        SpawnAdmitted(behaviour, thread, admitted, cancellationToken);" : "        SpawnAdmitted(behaviour, thread);");
        sb.AppendLine("        return completion;");
    }
    else
    {
        sb.AppendLine("        SpawnAdmitted(behaviour, thread);");
    }

    sb.AppendLine("    }");
    sb.AppendLine();
}

// The XML docs of a runtime form; the static form inherits them (and a batch form its parameters). The base form (no
// state, no token) has them whole; a form with a state or a token inherits the base form's and adds or replaces what
// differs, so a shape's text is written once, and the text every shape shares once (When.docs.xml).
static void EmitEntryPointDocs(StringBuilder sb, Shape shape, Kind kind, bool withState, bool withToken, bool result)
{
    if (withState || withToken)
    {
        (_, _, string baseName, string baseGeneric, _, _, List<string> baseParameters) = Signature(shape, kind, withState: false);
        var replaced = new List<string>();
        if (withToken)
        {
            replaced.Add("self::remarks or self::exception");
        }

        if (withState)
        {
            replaced.Add("self::param[@name='body']");
        }

        sb.AppendLine(InheritDocFromRuntime(baseName, baseGeneric, baseParameters, $"/*[not({string.Join(" or ", replaced)})]"));
        if (withToken)
        {
            sb.AppendLine("    /// <remarks>");
            EmitRemarkParagraphs(sb, shape, kind);
            sb.AppendLine($"    /// {DocText.Para("remarks-token", "Cancelling <paramref name=\"cancellationToken\"/> before the behaviour holds all its cowns withdraws it: the body never runs, and the awaitable completes as canceled with a <see cref=\"BehaviourWithdrawnException\"/> as soon as the cancellation is processed, whoever holds its cowns. Its place in each cown's queue is then passed on in order (behaviours behind it wait no longer than they would without it), and it counts as pending until every cown it was queued on has let it through. Cancelling after the body started reaches only the body (see <see cref=\"Behaviours.CurrentCancellationToken\"/>); the cowns stay held until it ends. A token that is canceled already, or that is canceled while the call waits for room on a full runtime (<see cref=\"BocFullMode.Wait\"/>), returns an awaitable that is canceled, and nothing is enqueued or counted.")}");
            sb.AppendLine("    /// </remarks>");
        }

        if (withState)
        {
            EmitStateDocs(sb, shape, kind, batch: false);
        }

        if (withToken)
        {
            sb.AppendLine($"    /// <param name=\"cancellationToken\">{DocText.Para("param-token", "Withdraws the behaviour if canceled before it holds all its cowns; afterwards it is only visible to the body.")}</param>");
            sb.AppendLine($"    /// {Exceptions(shape, "token")}");
        }

        return;
    }

    sb.AppendLine("    /// <summary>");
    sb.AppendLine($"    /// {Summary(shape, kind)}");
    sb.AppendLine("    /// </summary>");
    sb.AppendLine("    /// <remarks>");
    EmitRemarkParagraphs(sb, shape, kind);
    if (kind is not (Kind.Fire or Kind.FireAsync))
    {
        // Inline runs (src/Boc/Protocol/Behaviour.Inline.cs); never for the forms with a token.
        sb.AppendLine($"    /// {DocText.Para("remarks-inline", "Called from outside the runtime (not in a body, not on one of its workers), on a thread with no synchronization context or custom task scheduler, when nothing holds or waits for its cowns, it runs the body at once on the calling thread instead (an inline run, as a lock's fast path would), in a clean execution context, and the awaitable is complete when this method returns. A runtime with a fixed <see cref=\"BocRuntimeOptions.WorkerCount\"/> never runs bodies inline.")}");
    }

    sb.AppendLine("    /// </remarks>");
    EmitCownDocs(sb, shape);
    if (result)
    {
        sb.AppendLine("    /// <typeparam name=\"TResult\">The type of the body's result.</typeparam>");
    }

    EmitCownParameterDocs(sb, shape);
    sb.AppendLine($"    /// <param name=\"body\">{BodyDoc(shape, kind, withState: false)}</param>");
    if (kind is not (Kind.Fire or Kind.FireAsync))
    {
        sb.AppendLine($"    /// <returns>{ReturnsDoc(kind)}</returns>");
    }

    sb.AppendLine($"    /// {Exceptions(shape, "spawn")}");
}

// The paragraphs every spawn form's remarks open with: when the behaviour runs, and what a throwing body does.
static void EmitRemarkParagraphs(StringBuilder sb, Shape shape, Kind kind)
{
    (string id, string text) = Remarks(shape);
    sb.AppendLine($"    /// {DocText.Para(id, text)}");
    (id, text) = Errors(shape, kind);
    sb.AppendLine($"    /// {DocText.Para(id, text)}");
}

// ---- TryWhen: the fire-and-forget forms that return false instead of waiting or throwing when the runtime is full
// (BocRuntimeOptions.MaxPendingBehaviours). Self-contained, so that other changes to EmitEntryPoint merge cleanly.

void EmitTryWhen(StringBuilder sb, Shape shape, Kind kind, bool withState, bool isStatic)
{
    var typeParams = new List<string>(shape.StateTypes);
    if (withState)
    {
        typeParams.Add("TState");
    }

    string generic = typeParams.Count == 0 ? "" : $"<{string.Join(", ", typeParams)}>";
    string bodyType = BodyType(shape, kind, withState ? "TState" : null);
    var parameters = new List<string>(shape.CownParameters) { $"{bodyType} body" };
    if (withState)
    {
        parameters.Add("TState state");
    }

    if (isStatic)
    {
        sb.AppendLine(InheritDocFromRuntime("TryWhen", generic, parameters));
    }
    else
    {
        EmitTryWhenDocs(sb, shape, kind, withState);
    }

    sb.AppendLine($"    {(isStatic ? "public static" : "public")} bool TryWhen{generic}({string.Join(", ", parameters)})");
    EmitConstraints(sb, shape, "        ");

    if (isStatic)
    {
        EmitForwardToDefault(sb, shape, "TryWhen", withState, withToken: false);
        return;
    }

    EmitArgumentChecks(sb, shape);

    // Admission before renting: a refused spawn touches nothing.
    sb.AppendLine("        if (!TryAdmit())");
    sb.AppendLine("        {");
    if (shape.Dynamic)
    {
        sb.AppendLine("            list.Clear();");
    }

    sb.AppendLine("            return false;");
    sb.AppendLine("        }");
    sb.AppendLine();
    string cls = ClassName(shape, BodyClassOf(kind), withState ? "TState" : BodyType(shape, kind, null));
    var initArgs = new List<string> { "this" };
    initArgs.AddRange(shape.CownArguments.Select(a => a == "cowns" ? "list" : a));
    if (withState)
    {
        initArgs.Add("body");
        initArgs.Add("state");
    }
    else
    {
        var xs = shape.BodyArgumentNames.ToList();
        initArgs.Add($"static ({string.Join(", ", xs.Append("f"))}) => f({string.Join(", ", xs)})");
        initArgs.Add("body");
    }

    if (Appendable(shape, kind))
    {
        sb.AppendLine($"        {AppendableSpawn(shape)}({string.Join(", ", initArgs.Skip(1))});");
        sb.AppendLine("        return true;");
        sb.AppendLine("    }");
        sb.AppendLine();
        return;
    }

    sb.AppendLine("        BocThread thread = BocThread.Current;");
    sb.AppendLine($"        {cls} behaviour = BehaviourPool<{cls}>.Rent(thread);");
    sb.AppendLine($"        behaviour.Init({string.Join(", ", initArgs)});");
    if (shape.Dynamic)
    {
        // The behaviour has its own copy now: the scratch keeps no cown alive.
        sb.AppendLine("        list.Clear();");
    }

    sb.AppendLine("        SpawnAdmitted(behaviour, thread);");
    sb.AppendLine("        return true;");
    sb.AppendLine("    }");
    sb.AppendLine();
}

// The XML docs of a runtime TryWhen form; the static form inherits them. A form with state inherits the form
// without it, as the spawn forms do.
void EmitTryWhenDocs(StringBuilder sb, Shape shape, Kind kind, bool withState)
{
    if (withState)
    {
        string generic = shape.StateTypes.Any() ? $"<{string.Join(", ", shape.StateTypes)}>" : "";
        var parameters = new List<string>(shape.CownParameters) { $"{BodyType(shape, kind, null)} body" };
        sb.AppendLine(InheritDocFromRuntime("TryWhen", generic, parameters, "/*[not(self::param[@name='body'])]"));
        EmitStateDocs(sb, shape, kind, batch: false);
        return;
    }

    sb.AppendLine($"    /// <summary>{DocText.Para("try-summary", "Spawns a behaviour like <c>When</c> with the same arguments, unless the runtime is full: then it returns false and enqueues nothing.")}</summary>");
    sb.AppendLine($"    /// <remarks>{DocText.Para("try-remarks", "The runtime is full when it has <see cref=\"BocRuntimeOptions.MaxPendingBehaviours\"/> behaviours pending and the caller is outside it (not in a behaviour's body, nor on one of its workers). This method never waits and never throws for a full runtime, whatever <see cref=\"BocRuntimeOptions.FullMode\"/> says; to wait without blocking, <c>await</c> <see cref=\"BocRuntime.WaitForRoomAsync(System.Threading.CancellationToken)\"/> and try again. Without a bound, or from inside a body, it always spawns and returns true.")}</remarks>");
    EmitCownDocs(sb, shape);
    EmitCownParameterDocs(sb, shape);
    sb.AppendLine($"    /// <param name=\"body\">{BodyDoc(shape, kind, withState: false)}</param>");
    sb.AppendLine($"    /// <returns>{DocText.Para("returns-try", "True if the behaviour was spawned; false if the runtime was full, and nothing was enqueued.")}</returns>");
    sb.AppendLine($"    /// {Exceptions(shape, "try")}");
}

// ---- BocBatch: the When/WhenAsync forms of the atomic-batch builder (runtime.Batch(b => …)). They take the runtime
// forms' arguments (no CancellationToken: see Protocol/Behaviour.Batch.cs) and record the behaviour instead of spawning
// it. Self-contained, so that other changes to EmitEntryPoint merge cleanly.

void EmitBatchEntryPoint(StringBuilder sb, Shape shape, Kind kind, bool withState)
{
    (bool result, bool awaitable, string name, string generic, string bodyType, string returnType, List<string> parameters) =
        Signature(shape, kind, withState);

    if (withState)
    {
        // As on the runtime: the form with state inherits the batch's form without it, and adds the state's docs.
        (_, _, _, string baseGeneric, _, _, List<string> baseParameters) = Signature(shape, kind, withState: false);
        string baseCref = RuntimeCref(name, baseGeneric, baseParameters)["BocRuntime.".Length..];
        sb.AppendLine($"    /// <inheritdoc cref=\"{baseCref}\" path=\"/*[not(self::param[@name='body'])]\"/>");
        EmitStateDocs(sb, shape, kind, batch: true);
    }
    else
    {
        string like = $"<see cref=\"{RuntimeCref(name, generic, parameters)}\"/>";
        sb.AppendLine("    /// <summary>");
        sb.AppendLine($"    /// Adds to the batch a behaviour {Summary(shape, kind)["Spawns a behaviour ".Length..]}");
        sb.AppendLine("    /// </summary>");
        sb.AppendLine("    /// <remarks>");
        sb.AppendLine($"    /// It takes the arguments of {like}.");
        sb.AppendLine($"    /// {DocText.Para("batch-remarks", "Nothing is enqueued yet: the batch enqueues all its behaviours together when the delegate passed to <see cref=\"BocRuntime.Batch(Action{BocBatch})\"/> returns, in the order they were added, with no other behaviour between two of them on a cown they share. Once enqueued, the behaviour is like one spawned by the runtime's form.")}");
        sb.AppendLine(kind is Kind.Fire or Kind.FireAsync
            ? $"    /// {DocText.Para("batch-errors-fire", "If the body throws, the exception goes to the runtime's <see cref=\"BocRuntimeOptions.UnhandledExceptionHandler\"/> (or, without one, to the next <see cref=\"BocRuntime.WaitForQuiescenceAsync(System.Threading.CancellationToken)\"/>).")}"
            : $"    /// {DocText.Para("batch-errors-awaited", "If the body throws, the awaitable fails with the exception. If the batch is not enqueued (its delegate throws, or the runtime refuses it), the awaitable completes as canceled.")}");
        sb.AppendLine("    /// </remarks>");

        // The parameters and the awaitable mean what they mean on the runtime's form; the summary, remarks and exceptions
        // differ (recorded, not enqueued; no token; a closed batch throws).
        sb.AppendLine(InheritDocFromRuntime(name, generic, parameters, path: "/*[self::typeparam or self::param or self::returns]"));
        sb.AppendLine($"    /// {Exceptions(shape, "batch")}");
    }

    sb.AppendLine($"    public {returnType} {name}{generic}({string.Join(", ", parameters)})");
    EmitConstraints(sb, shape, "        ");

    sb.AppendLine("    {");
    sb.AppendLine("        ThrowIfClosed();");
    for (int i = 1; i <= shape.Singles; i++)
    {
        sb.AppendLine($"        ArgumentNullException.ThrowIfNull(c{i});");
    }

    if (shape.Dynamic)
    {
        sb.AppendLine($"        IAcquirable<TElement>[] list = CownSets.Snapshot(cowns, {shape.Singles});");
    }

    sb.AppendLine("        ArgumentNullException.ThrowIfNull(body);");
    string cls = ClassName(shape, BodyClassOf(kind), withState ? "TState" : BodyType(shape, kind, null));
    var initArgs = new List<string> { "_runtime" };
    initArgs.AddRange(shape.CownArguments.Select(a => a == "cowns" ? "list" : a));
    if (withState)
    {
        initArgs.Add("body");
        initArgs.Add("state");
    }
    else
    {
        var xs = shape.BodyArgumentNames.ToList();
        initArgs.Add($"static ({string.Join(", ", xs.Append("f"))}) => f({string.Join(", ", xs)})");
        initArgs.Add("body");
    }

    sb.AppendLine($"        {cls} behaviour = BehaviourPool<{cls}>.Rent();");
    sb.AppendLine($"        behaviour.Init({string.Join(", ", initArgs)});");
    if (awaitable)
    {
        sb.AppendLine($"        {returnType} completion = behaviour.{(result ? "Completion" : "VoidCompletion")};");
        sb.AppendLine("        Add(behaviour);");
        sb.AppendLine("        return completion;");
    }
    else
    {
        sb.AppendLine("        Add(behaviour);");
    }

    sb.AppendLine("    }");
    sb.AppendLine();
}

void EmitBehaviourClass(StringBuilder sb, Shape shape, BodyClass body)
{
    bool result = body is BodyClass.Func or BodyClass.AsyncFunc;
    string cls = ClassName(shape, body, "TState");
    string bodyType = BodyType(shape, KindOf(body), "TState");
    string baseClass = body switch
    {
        BodyClass.Action or BodyClass.AsyncAction => "FireAndForgetBehaviour",
        BodyClass.AwaitedAction or BodyClass.AwaitedAsyncAction => "ResultBehaviour<bool>",
        _ => "ResultBehaviour<TResult>",
    };

    sb.AppendLine($"internal sealed class {cls} : {baseClass}");
    EmitConstraints(sb, shape, "    ");

    sb.AppendLine("{");

    // A behaviour of exactly one cown finds it in its only slot (nothing sorts or merges one request), so it does not
    // keep a second reference to it: a pending behaviour's size is what a flood pays for.
    // Likewise a two-cown class declares the second slot itself (SlotLayout.Pair: no array, and no slot carried by
    // behaviours that do not use it) and finds both cowns in its slots.
    bool cownInSlot = shape.Singles == 1 && !shape.Dynamic;
    bool pair = shape.Singles == 2 && !shape.Dynamic;
    for (int i = 1; i <= shape.Singles && !cownInSlot && !pair; i++)
    {
        sb.AppendLine($"    private Cown? _c{i};");
    }

    if (pair)
    {
        sb.AppendLine("    private Slot _second;");
    }

    if (shape.Dynamic)
    {
        // The set in the caller's order, for the body's states: kept with the pooled object, grown when a larger set
        // comes, cleared on recycling (so a dynamic spawn allocates no copy of its list in steady state).
        sb.AppendLine("    private IAcquirable<TElement>[]? _cowns;");
        sb.AppendLine("    private int _cownCount;");
    }

    sb.AppendLine($"    private {bodyType}? _body;");
    sb.AppendLine("    private TState? _state;");
    sb.AppendLine();

    var initParams = new List<string> { "BocRuntime runtime" };
    initParams.AddRange(shape.CownParameters.Select(p => p.Replace("IReadOnlyList<IAcquirable<TElement>> cowns", "ReadOnlySpan<IAcquirable<TElement>> cowns")));
    initParams.Add($"{bodyType} body");
    initParams.Add("TState state");

    string capacity = shape.Dynamic ? $"{shape.Singles} + cowns.Length" : shape.Singles.ToString();
    sb.AppendLine($"    public void Init({string.Join(", ", initParams)})");
    sb.AppendLine("    {");
    sb.AppendLine(pair ? $"        Prepare(runtime, {capacity}, pair: true);" : $"        Prepare(runtime, {capacity});");
    for (int i = 1; i <= shape.Singles; i++)
    {
        if (cownInSlot || pair)
        {
            sb.AppendLine($"        AddRequest(c{i});");
            continue;
        }

        sb.AppendLine($"        _c{i} = AddRequest(c{i});");
    }

    if (shape.Dynamic)
    {
        sb.AppendLine("        if (_cowns is null || _cowns.Length < cowns.Length)");
        sb.AppendLine("        {");
        sb.AppendLine("            _cowns = new IAcquirable<TElement>[cowns.Length];");
        sb.AppendLine("        }");
        sb.AppendLine();
        sb.AppendLine("        cowns.CopyTo(_cowns);");
        sb.AppendLine("        _cownCount = cowns.Length;");
        sb.AppendLine("        foreach (IAcquirable<TElement> cown in cowns)");
        sb.AppendLine("        {");
        sb.AppendLine("            AddRequest(cown);");
        sb.AppendLine("        }");
    }

    sb.AppendLine("        _body = body;");
    sb.AppendLine("        _state = state;");

    sb.AppendLine("    }");
    sb.AppendLine();
    if (pair)
    {
        sb.AppendLine("    protected override ref Slot SecondSlot => ref _second;");
        sb.AppendLine();
    }

    // Unsafe.As: each state object was stored by a Cown<Ti> (or a Cown<U> with U : Ti, through IAcquirable's
    // covariance), so it is a Ti; the cast check would only cost time.
    var callArgs = new List<string>();
    for (int i = 1; i <= shape.Singles; i++)
    {
        callArgs.Add(
            cownInSlot ? $"Unsafe.As<T{i}>(OnlyCown.State)"
            : pair ? $"Unsafe.As<T{i}>(PairCown(second: {(i == 2 ? "true" : "false")}).State)"
            : $"Unsafe.As<T{i}>(_c{i}!.State)");
    }

    if (shape.Dynamic)
    {
        callArgs.Add("StatesOf(_cowns!, _cownCount)");
    }

    callArgs.Add("_state!");
    string call = $"_body!({string.Join(", ", callArgs)})";
    sb.AppendLine("    internal override Delegate? Body => _body;");
    sb.AppendLine();
    sb.AppendLine("    internal override Delegate? StateAsDelegate => _state as Delegate;");
    sb.AppendLine();
    sb.AppendLine("    protected override Task? InvokeBody()");
    sb.AppendLine("    {");
    switch (body)
    {
        case BodyClass.Action:
        case BodyClass.AwaitedAction:
            sb.AppendLine($"        {call};");
            sb.AppendLine("        return null;");
            break;
        case BodyClass.AsyncAction:
        case BodyClass.AwaitedAsyncAction:
        case BodyClass.AsyncFunc:
            // Mark the flow as this body's around the delegate call, so that its continuations know they belong to a
            // behaviour (Behaviour.Current); synchronous bodies use a thread-static instead (no context allocation).
            sb.AppendLine("        AsyncBody? outer = EnterAsyncBody(out AsyncBody running);");
            sb.AppendLine("        try");
            sb.AppendLine("        {");
            sb.AppendLine($"            return running.Task = {call} ?? throw NullTask();");
            sb.AppendLine("        }");
            sb.AppendLine("        finally");
            sb.AppendLine("        {");
            sb.AppendLine("            ExitAsyncBody(outer, running);");
            sb.AppendLine("        }");
            break;
        case BodyClass.Func:
            sb.AppendLine($"        SetResult({call});");
            sb.AppendLine("        return null;");
            break;
    }

    sb.AppendLine("    }");
    sb.AppendLine();
    sb.AppendLine("    protected override void Recycle(BocThread thread)");
    sb.AppendLine("    {");
    for (int i = 1; i <= shape.Singles && !cownInSlot && !pair; i++)
    {
        sb.AppendLine($"        _c{i} = null;");
    }

    if (shape.Dynamic)
    {
        sb.AppendLine("        Array.Clear(_cowns!, 0, _cownCount);");
        sb.AppendLine("        _cownCount = 0;");
    }

    sb.AppendLine("        _body = null;");
    sb.AppendLine("        _state = default;");
    sb.AppendLine("        ClearForPool();");
    sb.AppendLine($"        BehaviourPool<{cls}>.Return(this, thread);");
    sb.AppendLine("    }");
    sb.AppendLine("}");
    sb.AppendLine();
}

string ClassName(Shape shape, BodyClass body, string stateType)
{
    string prefix = shape.Dynamic ? "Dynamic" : "";
    string name = prefix + body + "Behaviour";
    var typeParams = new List<string>(shape.StateTypes) { stateType };
    if (body is BodyClass.Func or BodyClass.AsyncFunc)
    {
        typeParams.Add("TResult");
    }

    return $"{name}<{string.Join(", ", typeParams)}>";
}

static BodyClass BodyClassOf(Kind kind) => kind switch
{
    Kind.Fire => BodyClass.Action,
    Kind.FireAsync => BodyClass.AsyncAction,
    Kind.Completion => BodyClass.AwaitedAction,
    Kind.CompletionAsync => BodyClass.AwaitedAsyncAction,
    Kind.Result => BodyClass.Func,
    _ => BodyClass.AsyncFunc,
};

static Kind KindOf(BodyClass body) => body switch
{
    BodyClass.Action => Kind.Fire,
    BodyClass.AsyncAction => Kind.FireAsync,
    BodyClass.AwaitedAction => Kind.Completion,
    BodyClass.AwaitedAsyncAction => Kind.CompletionAsync,
    BodyClass.Func => Kind.Result,
    _ => Kind.AsyncResult,
};

static string BodyType(Shape shape, Kind kind, string? stateType)
{
    var args = new List<string>();
    for (int i = 1; i <= shape.Singles; i++)
    {
        args.Add($"T{i}");
    }

    if (shape.Dynamic)
    {
        args.Add("IReadOnlyList<TElement>");
    }

    if (stateType is not null)
    {
        args.Add(stateType);
    }

    string Join(string last) => string.Join(", ", args.Append(last));
    return kind switch
    {
        Kind.Fire or Kind.Completion => args.Count == 0 ? "Action" : $"Action<{string.Join(", ", args)}>",
        Kind.FireAsync or Kind.CompletionAsync => $"Func<{Join("Task")}>",
        Kind.Result => $"Func<{Join("TResult")}>",
        _ => $"Func<{Join("Task<TResult>")}>",
    };
}

static string Summary(Shape shape, Kind kind)
{
    string on = shape switch
    {
        { Dynamic: false, Singles: 0 } => "that needs no cown (an unordered task)",
        { Dynamic: false, Singles: 1 } => "that runs when it holds <paramref name=\"c1\"/>",
        { Dynamic: false } => $"that runs when it holds all {shape.Singles} cowns at once",
        { Singles: 0 } => "that runs when it holds every cown in <paramref name=\"cowns\"/> at once",
        _ => "that runs when it holds the single cowns and every cown in <paramref name=\"cowns\"/> at once",
    };
    string holding = shape.Singles == 0 && !shape.Dynamic
        ? "with an asynchronous body"
        : "with an asynchronous body that keeps the cowns until its task completes";
    return kind switch
    {
        Kind.Fire => $"Spawns a behaviour {on}; fire-and-forget.",
        Kind.FireAsync => $"Spawns a behaviour {on}, {holding}; fire-and-forget.",
        Kind.Completion => $"Spawns a behaviour {on}, and returns an awaitable for its completion.",
        Kind.CompletionAsync => $"Spawns a behaviour {on}, {holding}, and returns an awaitable for its completion.",
        Kind.Result => $"Spawns a behaviour {on}, and returns an awaitable for the body's result.",
        _ => $"Spawns a behaviour {on}, {holding}, and returns an awaitable for its result.",
    };
}

// When a spawned behaviour runs (the first paragraph of every spawn form's remarks).
static (string Id, string Text) Remarks(Shape shape) => shape.Singles == 0 && !shape.Dynamic
    ? ("remarks-no-cown", "The behaviour is accepted before this method returns and runs later, on a worker, in no particular order with other behaviours.")
    : ("remarks-cowns", "The behaviour is enqueued on every cown before this method returns, and runs later, on a worker. It runs after every behaviour spawned earlier that shares a cown with it (unless both only read that cown), and has exclusive access to its cowns (shared, for read-only ones) until the body finishes. A cown listed twice is acquired once.");

// What a throwing body does (the second paragraph).
static (string Id, string Text) Errors(Shape shape, Kind kind)
{
    bool cowns = shape.Singles > 0 || shape.Dynamic;
    string released = cowns ? "the cowns are still released, keeping what the body wrote to them before it threw (in process, writes are not rolled back), and " : "";
    return kind is Kind.Fire or Kind.FireAsync
        ? ($"errors-fire{(cowns ? "" : "-no-cown")}", $"If the body throws, {released}the exception goes to the runtime's <see cref=\"BocRuntimeOptions.UnhandledExceptionHandler\"/> (or, without one, to the next <see cref=\"BocRuntime.WaitForQuiescenceAsync(System.Threading.CancellationToken)\"/>).")
        : ($"errors-awaited{(cowns ? "" : "-no-cown")}", $"If the body throws, {released}the awaitable fails with the exception. Continuations of the awaitable never run on the releasing thread.");
}

// The body parameter's doc (an include of the text for this shape family, kind and state).
static string BodyDoc(Shape shape, Kind kind, bool withState)
{
    bool cowns = shape.Singles > 0 || shape.Dynamic;
    bool holds = cowns && kind is Kind.FireAsync or Kind.CompletionAsync or Kind.AsyncResult;
    string receives = !cowns
        ? (withState ? "The body; it receives <paramref name=\"state\"/>." : "The body.")
        : (withState ? "The body; it receives the acquired states, in argument order, then <paramref name=\"state\"/>." : "The body; it receives the acquired states, in argument order.");
    string id = $"body{(cowns ? "" : "-no-cown")}{(withState ? "-state" : "")}{(holds ? "-async" : "")}";
    return DocText.Para(id, holds ? receives + " The cowns stay acquired until the returned task completes." : receives);
}

// The doc text that many forms share, each piece written once (When.docs.xml) and included where it is used: a
// paragraph (<para>) inside an element, or a set of whole elements (the exceptions) at the top of a form's docs.
internal static class DocText
{
    public const string FileName = "When.docs.xml";

    private static readonly List<(string Id, string Xml)> s_entries = [];
    private static readonly Dictionary<string, string> s_byId = [];

    /// <summary>Registers a paragraph; returns the include that brings it in.</summary>
    public static string Para(string id, string text)
    {
        Register(id, $"<para id=\"{id}\">{text}</para>");
        return $"<include file=\"{FileName}\" path=\"docs/para[@id='{id}']\"/>";
    }

    /// <summary>Registers a set of elements; returns the include that brings them in, at the top of a member's docs.</summary>
    public static string Elements(string id, List<string> elements)
    {
        Register(id, $"<set id=\"{id}\">\n    {string.Join("\n    ", elements)}\n  </set>");
        return $"<include file=\"{FileName}\" path=\"docs/set[@id='{id}']/*\"/>";
    }

    public static string Render()
    {
        var sb = new StringBuilder();
        sb.AppendLine("<?xml version=\"1.0\" encoding=\"utf-8\"?>");
        sb.AppendLine("<!-- Generated by eng/GenerateWhen.cs. Do not edit: change the generator and run `dotnet run eng/GenerateWhen.cs`. -->");
        sb.AppendLine("<!-- The doc text the generated When forms share, each piece once; the forms include it (<include file=\"When.docs.xml\" .../>). -->");
        sb.AppendLine("<docs>");
        foreach ((_, string xml) in s_entries)
        {
            sb.AppendLine($"  {xml}");
        }

        sb.AppendLine("</docs>");
        return sb.ToString();
    }

    private static void Register(string id, string xml)
    {
        if (s_byId.TryGetValue(id, out string? known))
        {
            if (known != xml)
            {
                throw new InvalidOperationException($"Two different texts for the doc piece '{id}'.");
            }

            return;
        }

        s_byId[id] = xml;
        s_entries.Add((id, xml));
    }
}

internal sealed record Shape(int Singles, bool Dynamic)
{
    /// <summary>The shape's name in file names: Arity0..Arity8, or Set0..Set2 (a dynamic set after that many single cowns).</summary>
    public string Name => Dynamic ? $"Set{Singles}" : $"Arity{Singles}";

    public IEnumerable<string> StateTypes
    {
        get
        {
            for (int i = 1; i <= Singles; i++)
            {
                yield return $"T{i}";
            }

            if (Dynamic)
            {
                yield return "TElement";
            }
        }
    }

    public IEnumerable<string> CownParameters
    {
        get
        {
            for (int i = 1; i <= Singles; i++)
            {
                yield return $"IAcquirable<T{i}> c{i}";
            }

            if (Dynamic)
            {
                yield return "IReadOnlyList<IAcquirable<TElement>> cowns";
            }
        }
    }

    public IEnumerable<string> BodyArgumentNames
    {
        get
        {
            for (int i = 1; i <= Singles; i++)
            {
                yield return $"x{i}";
            }

            if (Dynamic)
            {
                yield return "xs";
            }
        }
    }

    public IEnumerable<string> CownArguments
    {
        get
        {
            for (int i = 1; i <= Singles; i++)
            {
                yield return $"c{i}";
            }

            if (Dynamic)
            {
                yield return "cowns";
            }
        }
    }
}

internal enum Kind
{
    Fire,
    FireAsync,
    Completion,
    CompletionAsync,
    Result,
    AsyncResult,
}

internal enum BodyClass
{
    Action,
    AsyncAction,
    AwaitedAction,
    AwaitedAsyncAction,
    Func,
    AsyncFunc,
}
