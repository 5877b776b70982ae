// Build step (not shipped): removes the Authenticode signature of a Windows (PE) executable, as `signtool remove /s`
// does. Node's official node.exe is signed by the OpenJS Foundation; injecting medchat changes the file, so that
// signature would no longer match: an unsigned file is honest about it, and the distributor signs it with their own.
/** The PE file without its certificate table (a copy; a file without one comes back unchanged). */
export function stripAuthenticode(input) {
  const pe = Buffer.from(input);
  if (pe.readUInt16LE(0) !== 0x5a4d) throw new Error('not a Windows executable (no MZ header)');
  const header = pe.readUInt32LE(0x3c);
  if (pe.readUInt32LE(header) !== 0x00004550) throw new Error('not a Windows executable (no PE header)');
  const optional = header + 24;
  const magic = pe.readUInt16LE(optional);
  const directories = optional + (magic === 0x20b ? 112 : 96); // PE32+ or PE32
  const security = directories + 4 * 8; // IMAGE_DIRECTORY_ENTRY_SECURITY: a file offset and a size
  const at = pe.readUInt32LE(security);
  const size = pe.readUInt32LE(security + 4);
  if (at === 0 || size === 0) return pe;
  if (at + size !== pe.length) throw new Error('the certificate table is not at the end of the file: left as it is would be wrong');
  pe.writeUInt32LE(0, security);
  pe.writeUInt32LE(0, security + 4);
  pe.writeUInt32LE(0, optional + 64); // the checksum covered the old file
  return pe.subarray(0, at);
}
