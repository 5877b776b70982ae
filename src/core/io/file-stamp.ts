import fs from 'node:fs';

/**
 * A file's identity and version (device, inode, size, change times): another process's save
 * replaces the inode or changes the times, so a different stamp means "read it again".
 * Undefined when the file is not there.
 */
export function fileStamp(file: string): string | undefined {
  try {
    const st = fs.statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return undefined;
  }
}
