// System.Threading.Lock arrived in .NET 9. On .NET 8 the runtime's `Lock` fields are plain monitor objects: `lock`
// statements compile to Monitor.Enter/Exit on both, with the same semantics, so no field declaration needs an #if.
#if !NET9_0_OR_GREATER
global using Lock = object;
#endif
