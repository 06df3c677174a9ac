// The streaming ZIP reader the bulk loaders share: members one at a time with their decoded
// names, and a stable reason for every archive it cannot read (an HTML page saved as a ZIP, a
// truncated download, a member declaring more bytes than allowed).

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { decodeMemberName, DEFAULT_ZIP_LIMITS, zipMembers, ZipReadError, type ZipMember } from '../../src/sources/shared/zip-stream.js';
import { tempDir } from '../support/tmp.js';
import { overlappingZip, zipOf } from './helpers.js';

/** A ZIP whose members each hold one byte and declare `declared` (a ZIP bomb's headers). */
const declaring = (names: string[], declared: number): Uint8Array => zipOf(names.map((name) => ({ name, content: 'x', declaredSize: declared })));


async function collect(path: string, read: (m: ZipMember) => Promise<string>): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const m of zipMembers(path)) out.push([m.name, await read(m)]);
  return out;
}

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ZipReadError, `expected a ZipReadError, got ${String(err)}`);
    return err.reason;
  }
  assert.fail('expected the read to fail');
}

describe('zipMembers', () => {
  const tmp = tempDir();
  after(tmp.cleanup);

  it('yields each member with its bytes, as a buffer or a stream', async () => {
    const path = join(tmp.dir, 'two.zip');
    writeFileSync(path, zipOf([{ name: 'CIK0000320193.json', content: '{"cik":320193}' }, { name: 'dir/b.txt', content: 'b'.repeat(70_000) }]));
    assert.deepEqual(await collect(path, async (m) => (await m.bytes()).toString('utf8').slice(0, 14)), [
      ['CIK0000320193.json', '{"cik":320193}'],
      ['dir/b.txt', 'b'.repeat(14)],
    ]);
    const sizes: number[] = [];
    for await (const m of zipMembers(path)) {
      let n = 0;
      for await (const chunk of await m.open()) n += (chunk as Buffer).length;
      sizes.push(n);
    }
    assert.deepEqual(sizes, [14, 70_000]);
  });

  it('refuses an HTML page saved as a ZIP, and says it is one', async () => {
    const path = join(tmp.dir, '2025_1Q_BS_20250606000000.zip');
    writeFileSync(path, '<!DOCTYPE html><html><body>요청하신 페이지를 찾을 수 없습니다</body></html>');
    const err = await collect(path, async () => '').catch((e: unknown) => e);
    assert.ok(err instanceof ZipReadError);
    assert.equal(err.reason, 'not a ZIP');
    assert.match(err.message, /HTML page/);
  });

  it('refuses a truncated archive', async () => {
    const whole = zipOf([{ name: 'a.json', content: '{"a":1}'.repeat(1000) }]);
    const path = join(tmp.dir, 'cut.zip');
    writeFileSync(path, whole.subarray(0, Math.floor(whole.length / 2)));
    assert.equal(await reason(collect(path, async (m) => (await m.bytes()).toString())), 'truncated or corrupt ZIP');
  });

  it('refuses a member that declares more bytes than the limit, before inflating it', async () => {
    const path = join(tmp.dir, 'big.zip');
    writeFileSync(path, zipOf([{ name: 'small.json', content: '{}' }, { name: 'big.json', content: 'x'.repeat(2_000) }]));
    const seen: string[] = [];
    const run = (async () => {
      for await (const m of zipMembers(path, { maxMemberBytes: 1_000 })) seen.push(m.name);
    })();
    assert.equal(await reason(run), 'member too large');
    assert.deepEqual(seen, ['small.json']);
  });

  it('by default: a member declaring 4,294,967,280 bytes is listed (under the 8 GiB member cap) but its bytes() is refused before anything is read', async () => {
    const path = join(tmp.dir, 'bomb.zip');
    writeFileSync(path, declaring(['bomb.json'], 0xfffffff0));
    assert.equal(DEFAULT_ZIP_LIMITS.maxBufferBytes, 536_870_912);
    let error: unknown;
    for await (const m of zipMembers(path)) {
      assert.equal(m.size, 4_294_967_280);
      error = await m.bytes().catch((e: unknown) => e);
    }
    assert.ok(error instanceof ZipReadError);
    assert.equal(error.reason, 'member too large');
    assert.equal(error.message, 'member too large: bomb.json declares 4294967280 bytes, more than is read into memory (536870912)');
  });

  it('refuses an archive whose members declare more than maxTotalBytes in all, before reading any member', async () => {
    const path = join(tmp.dir, 'bombs.zip');
    // Three members of 4,294,967,280 declared bytes: 8,589,934,560 after two, 12,884,901,840 after three.
    writeFileSync(path, declaring(['a', 'b', 'c'], 0xfffffff0));
    const seen: string[] = [];
    const run = (async () => {
      for await (const m of zipMembers(path, { maxTotalBytes: 10_000_000_000 })) seen.push(m.name);
    })();
    const err = await run.catch((e: unknown) => e);
    assert.ok(err instanceof ZipReadError);
    assert.equal(err.reason, 'archive too large');
    assert.equal(err.message, 'archive too large: its members declare more than 10000000000 bytes in all (12884901840 up to c)');
    assert.deepEqual(seen, []);
    // The default caps: 8 GiB a member, 64 GiB in all.
    assert.deepEqual([DEFAULT_ZIP_LIMITS.maxMemberBytes, DEFAULT_ZIP_LIMITS.maxTotalBytes, DEFAULT_ZIP_LIMITS.maxMembers], [8_589_934_592, 68_719_476_736, 2_000_000]);
  });

  it('refuses an archive with more members than allowed', async () => {
    const path = join(tmp.dir, 'many.zip');
    writeFileSync(path, zipOf(['a', 'b', 'c'].map((name, i) => ({ name, content: String(i + 1) }))));
    assert.equal(await reason((async () => { for await (const m of zipMembers(path, { maxMembers: 2 })) void m; })()), 'too many members');
  });
});

describe('zipMembers: entries that overlap or lie outside the archive', () => {
  const tmp = tempDir();
  after(tmp.cleanup);

  async function readAll(path: string): Promise<{ seen: string[]; reason: string }> {
    const seen: string[] = [];
    const r = await reason(
      (async () => {
        for await (const m of zipMembers(path)) {
          seen.push(m.name);
          await m.bytes();
        }
      })(),
    );
    return { seen, reason: r };
  }

  it('refuses 16 names on one deflate stream before yielding any member (each would inflate to the whole)', async () => {
    const path = join(tmp.dir, 'overlap.zip');
    const names = Array.from({ length: 16 }, (_, i) => `copy${String(i).padStart(2, '0')}.txt`);
    writeFileSync(path, overlappingZip(names, new Uint8Array(1_000_000)));
    assert.deepEqual(await readAll(path), { seen: [], reason: 'overlapping members' });
  });

  it('refuses entries at different offsets whose data runs over the next header (the first member\'s data holds the others)', async () => {
    const path = join(tmp.dir, 'shifted.zip');
    // 1 MB of zeros deflate to ~1 KB; entries 40 bytes apart all start inside the first member's data.
    writeFileSync(path, overlappingZip(['a', 'b', 'c'], new Uint8Array(1_000_000), 40));
    assert.deepEqual(await readAll(path), { seen: [], reason: 'overlapping members' });
  });

  it('refuses a member whose data would run into the central directory', async () => {
    const good = Buffer.from(zipOf([{ name: 'a.txt', content: 'hello' }]));
    // The central entry's compressed size (offset 20 of the entry, which starts after the local
    // header, the name and the 7 deflated bytes) grown by 10: the data would end inside the directory.
    const cdStart = good.readUInt32LE(good.length - 22 + 16);
    good.writeUInt32LE(good.readUInt32LE(cdStart + 20) + 10, cdStart + 20);
    const path = join(tmp.dir, 'outside.zip');
    writeFileSync(path, good);
    assert.deepEqual(await readAll(path), { seen: [], reason: 'member outside the archive' });
  });

  it('reads an archive whose central directory lists members out of their order on disk', async () => {
    const two = Buffer.from(zipOf([{ name: 'first.txt', content: 'one' }, { name: 'second.txt', content: 'two' }]));
    // Swap the two central entries (each 46 bytes + a name): the directory lists second.txt first.
    const cdStart = two.readUInt32LE(two.length - 22 + 16);
    const firstLen = 46 + 'first.txt'.length;
    const a = two.subarray(cdStart, cdStart + firstLen);
    const b = two.subarray(cdStart + firstLen, two.length - 22);
    const swapped = Buffer.concat([two.subarray(0, cdStart), b, a, two.subarray(two.length - 22)]);
    const path = join(tmp.dir, 'unordered.zip');
    writeFileSync(path, swapped);
    assert.deepEqual(await collect(path, async (m) => (await m.bytes()).toString()), [
      ['second.txt', 'two'],
      ['first.txt', 'one'],
    ]);
  });
});

describe('decodeMemberName', () => {
  it('reads CP949 names written without the UTF-8 flag, as OpenDART writes them', () => {
    const name = '2025_1분기보고서_01_재무상태표_은행_연결_20250606.txt';
    assert.equal(decodeMemberName(iconv.encode(name, 'cp949'), false), name);
  });
  it('reads UTF-8 names when the flag says so, and plain ASCII either way', () => {
    assert.equal(decodeMemberName(Buffer.from('재무상태표.txt', 'utf8'), true), '재무상태표.txt');
    assert.equal(decodeMemberName(Buffer.from('CIK0000320193.json'), false), 'CIK0000320193.json');
  });
});
