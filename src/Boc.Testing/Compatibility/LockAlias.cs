// System.Threading.Lock arrived in .NET 9; on .NET 8 a `Lock` field is a plain monitor object (see src/Boc).
#if !NET9_0_OR_GREATER
global using Lock = object;
#endif
