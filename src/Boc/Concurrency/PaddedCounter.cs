using System.Runtime.InteropServices;

namespace Boc;

/// <summary>A counter alone on its cache line (64 bytes of padding on each side).</summary>
[StructLayout(LayoutKind.Explicit, Size = 192)]
internal struct PaddedCounter
{
    [FieldOffset(64)]
    public long Value;
}
