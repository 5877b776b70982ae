/**
 * The demo's image jobs: a sample picture to try (drawn here, so the package ships it as code),
 * and results that are real images — the submitted picture with its colours turned — so the
 * chat screen's preview shows something.
 */
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { encodePng } from '../stand-in/retexture.js';
import type { RetextureDouble } from '../stand-in/retexture.js';

export function samplePng(size = 48): Buffer {
  const rgb = new Uint8Array(size * size * 3);
  const mid = size / 2;
  const arm = size / 8;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 3;
      const cross = (Math.abs(x - mid) < arm && Math.abs(y - mid) < size * 0.35) || (Math.abs(y - mid) < arm && Math.abs(x - mid) < size * 0.35);
      if (cross) {
        rgb[i] = 220;
        rgb[i + 1] = 40;
        rgb[i + 2] = 50;
      } else {
        rgb[i] = 40 + Math.round((x / size) * 80);
        rgb[i + 1] = 120 + Math.round((y / size) * 100);
        rgb[i + 2] = 200;
      }
    }
  }
  return encodePng(size, size, rgb);
}

interface Pixels {
  width: number;
  height: number;
  rgba: Uint8Array;
}

function decode(dataUri: string): Pixels | undefined {
  const m = /^data:(image\/[a-z+]+);base64,(.*)$/s.exec(dataUri);
  if (!m) return undefined;
  const bytes = Buffer.from(m[2]!, 'base64');
  try {
    if (m[1] === 'image/png') {
      const png = PNG.sync.read(bytes);
      return { width: png.width, height: png.height, rgba: png.data };
    }
    if (m[1] === 'image/jpeg') {
      const img = jpeg.decode(bytes, { useTArray: true, maxMemoryUsageInMB: 256 });
      return { width: img.width, height: img.height, rgba: img.data };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The picture with its colour channels turned (red → green → blue → red), at most 256 px wide. */
function turnColours(p: Pixels): Buffer {
  const scale = Math.max(1, Math.ceil(p.width / 256));
  const w = Math.floor(p.width / scale);
  const h = Math.floor(p.height / scale);
  const rgb = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const s = (y * scale * p.width + x * scale) * 4;
      const d = (y * w + x) * 3;
      rgb[d] = p.rgba[s + 2]!;
      rgb[d + 1] = p.rgba[s]!;
      rgb[d + 2] = p.rgba[s + 1]!;
    }
  }
  return encodePng(w, h, rgb);
}

export function attachDemoRetexture(retexture: RetextureDouble, baseUrl: () => string): void {
  let n = 0;
  retexture.beforeSubmit = (req) => {
    const name = `demo-result-${++n}.png`;
    const input = typeof req.body?.image === 'string' ? decode(req.body.image) : undefined;
    const bytes = input ? turnColours(input) : turnColours(decode(`data:image/png;base64,${samplePng().toString('base64')}`)!);
    retexture.images.set(name, { bytes, contentType: 'image/png' });
    return {
      life: {
        steps: [
          { status: 'SUBMITTED', progress: '0%' },
          { status: 'IN_PROGRESS', progress: '35%' },
          { status: 'IN_PROGRESS', progress: '80%' },
        ],
        imageUrl: `${baseUrl()}/mj/image/${name}`,
      },
    };
  };
}
