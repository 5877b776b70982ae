import assert from 'node:assert/strict';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { MedchatError } from '../../src/core/errors.js';
import { loadImageInput, sniffImageType } from '../../src/core/retexture/image-input.js';
import { splitImageAndPrompt } from '../../src/core/retexture/index.js';
import { ansi256, detectPreviewProtocol, renderPreview } from '../../src/core/retexture/preview.js';
import { buildRetextureBody } from '../../src/core/retexture/submit.js';
import { backoffSchedule, parsePercent, parseSeconds } from '../../src/core/retexture/task-poll.js';
import { parseJsonLossless, taskIdFrom } from '../../src/core/retexture/task-id.js';
import { GIF_BYTES, JPEG_BYTES, PNG_BYTES, RED_BLUE_PNG, WEBP_BYTES, tempDir, writeTemp } from '../fixtures/images.js';

describe('task ids survive JSON digit for digit', () => {
  it('keeps a bare number above 2^53 exactly', () => {
    const body = parseJsonLossless('{"code":1,"description":"ok","properties":{},"result":1712345678901234567}') as Record<string, unknown>;
    assert.equal(body.result, '1712345678901234567');
    assert.equal(body.code, 1);
  });

  it('keeps leading zeros, quoted or (from lenient servers) bare', () => {
    assert.equal((parseJsonLossless('{"result":"00123456789012345678"}') as any).result, '00123456789012345678');
    assert.equal((parseJsonLossless('{"result": 0012345}') as any).result, '0012345');
  });

  it('turns small numeric ids into strings too, and ids in arrays', () => {
    assert.equal((parseJsonLossless('{"id": 42}') as any).id, '42');
    assert.deepEqual((parseJsonLossless('{"ids": [9007199254740993, "07"]}') as any).ids, ['9007199254740993', '07']);
  });

  it('keeps other unsafe integers as strings, ordinary numbers as numbers', () => {
    const v = parseJsonLossless('[{"submitTime": 1795327001123, "big": 123456789012345678901, "f": 1.5e2, "n": -3}]') as any[];
    assert.deepEqual(v[0], { submitTime: 1795327001123, big: '123456789012345678901', f: 150, n: -3 });
  });

  it('parses escapes, nesting, booleans and null like JSON.parse', () => {
    const text = '{"a":"x\\n\\"y\\u00e9","b":[true,false,null,{}],"c":{"d":[]}}';
    assert.deepEqual(parseJsonLossless(text), JSON.parse(text));
    assert.equal(parseJsonLossless('null'), null);
  });

  it('refuses broken JSON', () => {
    for (const bad of ['{', '{"a":1,}', '<html>', '{"a":1} x', '"open']) assert.throws(() => parseJsonLossless(bad));
  });

  it('taskIdFrom: strings trimmed, empty is no id', () => {
    assert.equal(taskIdFrom(' 0123 '), '0123');
    assert.equal(taskIdFrom(''), undefined);
    assert.equal(taskIdFrom(null), undefined);
  });
});

describe('image input', () => {
  it('finds the type from the bytes', () => {
    assert.equal(sniffImageType(PNG_BYTES), 'image/png');
    assert.equal(sniffImageType(JPEG_BYTES), 'image/jpeg');
    assert.equal(sniffImageType(WEBP_BYTES), 'image/webp');
    assert.equal(sniffImageType(GIF_BYTES), 'image/gif');
    assert.equal(sniffImageType(Buffer.from('%PDF-1.4')), undefined);
  });

  it('a file becomes a data URI with the sniffed type, whatever its name says', async () => {
    const file = writeTemp('photo.png', JPEG_BYTES);
    const input = await loadImageInput(file);
    assert.equal(input.value, `data:image/jpeg;base64,${Buffer.from(JPEG_BYTES).toString('base64')}`);
  });

  it('a link is passed as is; stdin is read', async () => {
    assert.equal((await loadImageInput('https://example.com/a.png?x=1')).value, 'https://example.com/a.png?x=1');
    const input = await loadImageInput('-', { stdin: Readable.from([GIF_BYTES]) });
    assert.equal(input.value, `data:image/gif;base64,${GIF_BYTES.toString('base64')}`);
  });

  const usage = (re: RegExp) => (err: unknown) => err instanceof MedchatError && err.exitCode === 2 && re.test(err.message);

  it('refuses non-images, empty files, missing files, folders and oversized files with exit code 2', async () => {
    await assert.rejects(loadImageInput(writeTemp('a.png', 'hello')), usage(/not a PNG, JPEG, WebP or GIF/));
    await assert.rejects(loadImageInput(writeTemp('b.png', '')), usage(/is empty/));
    await assert.rejects(loadImageInput(path.join(tempDir(), 'nope.png')), usage(/no such file/));
    await assert.rejects(loadImageInput(tempDir()), usage(/is a folder/));
    await assert.rejects(loadImageInput(writeTemp('c.png', PNG_BYTES), { maxBytes: 10 }), usage(/larger than .* limit.*--max-image-mb/));
    await assert.rejects(loadImageInput('-', { stdin: Readable.from([PNG_BYTES]), maxBytes: 10 }), usage(/larger than/));
  });
});

describe('request body', () => {
  it('holds optional keys only when given', () => {
    assert.deepEqual(buildRetextureBody({ prompt: 'p', image: 'i' }), { prompt: 'p', image: 'i' });
    assert.deepEqual(buildRetextureBody({ prompt: 'p', image: 'i', state: '', noStorage: false }), { prompt: 'p', image: 'i', state: '', noStorage: false });
  });
});

describe('polling schedule and flags', () => {
  it('backs off from 2 s to 10 s', () => {
    const wait = backoffSchedule(2000);
    assert.deepEqual([0, 1, 2, 3, 4, 5, 10].map(wait), [2000, 3000, 4500, 6750, 10000, 10000, 10000]);
    assert.equal(backoffSchedule(30_000)(3), 30_000);
  });

  it('reads percent and seconds', () => {
    assert.equal(parsePercent('45%'), 45);
    assert.equal(parsePercent(''), undefined);
    assert.equal(parsePercent(120), 100);
    assert.equal(parseSeconds('--timeout', '0.25', 1), 250);
    assert.throws(() => parseSeconds('--timeout', 'soon', 1), /--timeout must be a number of seconds/);
    assert.throws(() => parseSeconds('--poll-interval', '0', 1), /above 0/);
  });
});

describe('preview', () => {
  it('draws coloured half blocks: top pixel as foreground, bottom as background', () => {
    const p = renderPreview(RED_BLUE_PNG, { protocol: 'blocks', columns: 2, trueColour: true })!;
    assert.equal(p.protocol, 'blocks');
    // 2×1 pixels → 2 columns, 1 row; the missing bottom half is resampled from the same row.
    assert.match(p.text, /\x1b\[38;2;255;0;0;48;2;255;0;0m▀/);
    assert.match(p.text, /\x1b\[38;2;0;0;255;48;2;0;0;255m▀\x1b\[0m\n$/);
  });

  it('uses 256 colours without truecolor, and plain characters for NO_COLOR', () => {
    const p = renderPreview(PNG_BYTES, { protocol: 'blocks', columns: 8, trueColour: false })!;
    assert.match(p.text, /\x1b\[38;5;\d+/);
    assert.equal(ansi256(255, 0, 0), 196);
    const a = renderPreview(JPEG_BYTES, { protocol: 'ascii', columns: 8 })!;
    assert.doesNotMatch(a.text, /\x1b/);
    assert.ok(a.text.trim().length > 0);
  });

  it('speaks the iTerm2 and kitty protocols', () => {
    const i = renderPreview(PNG_BYTES, { protocol: 'iterm2', columns: 20 })!;
    assert.ok(i.text.startsWith('\x1b]1337;File='));
    assert.match(i.text, new RegExp(`size=${PNG_BYTES.length};width=20;.*inline=1:${PNG_BYTES.toString('base64').replace(/[+/]/g, '\\$&')}\x07`));
    const k = renderPreview(JPEG_BYTES, { protocol: 'kitty', columns: 8 })!;
    assert.match(k.text, /^\x1b_Ga=T,f=100,t=d,c=8,r=\d+,m=0;iVBORw0KGgo/);
    assert.ok(k.text.endsWith('\x1b\\\n'));
  });

  it('picks the protocol from the terminal', () => {
    assert.equal(detectPreviewProtocol({ TERM_PROGRAM: 'iTerm.app' }), 'iterm2');
    assert.equal(detectPreviewProtocol({ TERM: 'xterm-kitty' }), 'kitty');
    assert.equal(detectPreviewProtocol({ TERM: 'xterm-kitty', TMUX: '/tmp/x' }), 'blocks');
    assert.equal(detectPreviewProtocol({ TERM: 'xterm-256color' }), 'blocks');
    assert.equal(detectPreviewProtocol({ TERM_PROGRAM: 'iTerm.app' }, false), 'ascii');
  });

  it('has nothing to draw for undecodable types outside iTerm2', () => {
    assert.equal(renderPreview(WEBP_BYTES, { protocol: 'blocks' }), undefined);
    assert.equal(renderPreview(Buffer.from('not an image'), { protocol: 'iterm2' }), undefined);
  });
});

describe('/retexture arguments', () => {
  it('splits the image from the prompt, with quotes for paths with spaces', () => {
    assert.deepEqual(splitImageAndPrompt('scan.png make it blue'), { image: 'scan.png', prompt: 'make it blue' });
    assert.deepEqual(splitImageAndPrompt('"my scan.png"  watercolour'), { image: 'my scan.png', prompt: 'watercolour' });
    assert.throws(() => splitImageAndPrompt('scan.png'), /add a prompt/);
    assert.throws(() => splitImageAndPrompt('  '), /usage/);
  });
});

