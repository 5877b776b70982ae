// Build step (not shipped): removes the code signature of a thin 64-bit macOS (Mach-O) executable, as
// `codesign --remove-signature` does, which Node's SEA documentation asks for before injecting (there is no codesign
// on the Linux machine that builds the release). Injecting changes the file, so the signature Node's binary carried
// would no longer match; the distributor signs the result (`codesign --sign -`, or their own identity).
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;

/** The Mach-O file without its signature (a copy; a file without one comes back unchanged). */
export function stripCodeSignature(input) {
  const mo = Buffer.from(input);
  if (mo.readUInt32LE(0) !== 0xfeedfacf) throw new Error('not a thin 64-bit Mach-O executable');
  const ncmds = mo.readUInt32LE(16);
  const sizeofcmds = mo.readUInt32LE(20);
  let signature; // { at, size, dataoff, datasize }
  let linkedit; // offset of the __LINKEDIT segment command
  for (let i = 0, at = 32; i < ncmds; i++) {
    const cmd = mo.readUInt32LE(at);
    const size = mo.readUInt32LE(at + 4);
    if (cmd === LC_CODE_SIGNATURE) signature = { at, size, dataoff: mo.readUInt32LE(at + 8), datasize: mo.readUInt32LE(at + 12) };
    if (cmd === LC_SEGMENT_64 && mo.toString('latin1', at + 8, at + 24).replace(/\0+$/, '') === '__LINKEDIT') linkedit = at;
    at += size;
  }
  if (!signature) return mo;
  if (linkedit === undefined) throw new Error('a signed Mach-O without a __LINKEDIT segment');
  const fileoff = Number(mo.readBigUInt64LE(linkedit + 40));
  const filesize = Number(mo.readBigUInt64LE(linkedit + 48));
  if (signature.dataoff + signature.datasize !== mo.length || fileoff + filesize !== mo.length) {
    throw new Error('the signature is not at the end of the file and of __LINKEDIT: left as it is would be wrong');
  }
  // __LINKEDIT ends where the signature began (its vmsize may stay larger: the rest is zero-filled).
  mo.writeBigUInt64LE(BigInt(signature.dataoff - fileoff), linkedit + 48);
  // The load command goes: the ones after it move up, the space it held is zeroed.
  const end = 32 + sizeofcmds;
  mo.copy(mo, signature.at, signature.at + signature.size, end);
  mo.fill(0, end - signature.size, end);
  mo.writeUInt32LE(ncmds - 1, 16);
  mo.writeUInt32LE(sizeofcmds - signature.size, 20);
  return mo.subarray(0, signature.dataoff);
}
