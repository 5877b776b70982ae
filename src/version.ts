/** The version, set by the build (build/build.mjs defines __MEDCHAT_VERSION__); `0.0.0-dev` when run from source. */
declare const __MEDCHAT_VERSION__: string;
export const VERSION = typeof __MEDCHAT_VERSION__ === 'string' ? __MEDCHAT_VERSION__ : '0.0.0-dev';
