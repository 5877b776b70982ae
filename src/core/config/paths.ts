import os from 'node:os';
import path from 'node:path';

/** Where medchat keeps its files. Both can be moved with an environment variable (tests, portable installs). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MEDCHAT_CONFIG_DIR) return path.resolve(env.MEDCHAT_CONFIG_DIR);
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Preferences', 'medchat');
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'medchat', 'Config');
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'medchat');
}

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MEDCHAT_DATA_DIR) return path.resolve(env.MEDCHAT_DATA_DIR);
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'medchat');
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'medchat', 'Data');
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'medchat');
}
