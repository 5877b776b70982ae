// bench/privacy-names: names written without labels ("Spoke to Tom", "gastro (Rajesh)") against the labelled notes of
// test/fixtures/privacy/names-tuning and names-heldout. Prints name recall and precision for each (the held-out figure is
// the honest one: those notes were written before the name pass and never tuned on).
// First look (before the name pass, nothing tuned): names-tuning recall 0.262 (11/42), precision 1.000; names-heldout
// recall 0.316 (12/38), precision 1.000. Every name with no label, title or relation before it was missed.
// After tuning on names-tuning (1.000, 42/42), the first look at names-heldout: recall 0.895 (34/38), precision 1.000
// (missed: a sentence-initial name with no list entry before "leading", the name joined to it, "from the Parkinson's team",
// 杨帆 with a given-name character not on the list).
// names-heldout-2 was then written, before the fixes those misses led to; its first look after them: recall 0.872 (34/39),
// precision 0.919 (missed: "Yasmin and Gintare to scrub", "Farhan to discuss", 交冯晓梅继续, 田野 in "田野、潘婷接班";
// wrong: Chester, Lincoln, Preston in a list of towns).
// names-heldout-3, written before the fixes the second set led to; its first look after them: recall 0.788 (26/33),
// precision 1.000 (missed: "review with Adaeze:", "Mirela in CT confirmed", "under Nkechi", "done by Liesel", 今晨董立新查房,
// 心内科贺军会诊, 通知姚鹏调整). Each new set has shown context the rules did not know: 0.895, 0.872, 0.788 on first looks.
// names-heldout-4, written before the fixes the third set led to; its first look after them: recall 0.742 (23/31),
// precision 0.958 (missed: "Barnaby knows", "OGD tomorrow with Demetrios", "Folasade from social work", "with Kamau",
// "mobilised with Jolene", "Discussed fluids with Obinna", 龙小军, 付强交夜班; wrong: 安静入 after 患者, by the label rule).
// names-heldout-5, written before the fixes the fourth set led to; its first look after them: recall 0.926 (25/27),
// precision 1.000 (every English name found; missed 邵文杰 before 副主任医师, 余慧 in 接余慧班). Left untuned: it is the
// held-out figure. First looks in order: 0.895, 0.872, 0.788, 0.742, 0.926; the goal is 0.95.
// Then names-heldout-6 was written (before any of the fixes set 5 led to), and set 5 was tuned on: names before
// 副主任医师/护士长/规培 and after a title, inside 接…班, after 今晚/昨天; 安静 after 患者 is no name (label rule).
// Sets 1-5 then at 1.000, precision 1.000.
// names-heldout-6, written before those fixes; its first look after them: recall 0.765 (26/34), precision 1.000
// (missed: "hand to Mateus at 20:00", "Nights: Ingrid, Rafael and Yusra", "Pleural tap done this morning by Tadeusz",
// 由孟凡行腰椎穿刺, 方案由黎振华执行, 交给秦月继续观察). Left untuned: it is the held-out figure, below the goal of 0.95.
// First looks in order: 0.895, 0.872, 0.788, 0.742, 0.926, 0.765.
// Round 3 changed the approach rather than the contexts: a word on the given-name list (or a Chinese surname and
// given characters) is a name on that evidence alone, and context only rejects it. names-heldout-7 was written
// before that change (40 names, 10 notes); sets 1-6 then at 1.000, precision 1.000. Its first look: recall 0.950
// (38/40), precision 1.000 (missed: "ECG reviewed alongside Priyanka", "Physio plan from Saoirse:"). Left untuned.
// First looks in order: 0.895, 0.872, 0.788, 0.742, 0.926, 0.765, 0.950.
// Run: npx tsx bench/privacy-names.ts [--misses]
import { scan } from '../src/core/privacy/scanner.js';
import { precision, recall, scoreFindings } from '../test/support/privacy-set.js';
import { loadNamesSet, type NamesPart } from '../test/support/privacy-names-set.js';

const showMisses = process.argv.includes('--misses');
const GOAL = { tuned: 0.99, heldout: 0.95, precision: 0.9 };
for (const part of (process.argv.includes('--tuning-only') ? ['names-tuning'] : ['names-tuning', 'names-heldout', 'names-heldout-2', 'names-heldout-3', 'names-heldout-4', 'names-heldout-5', 'names-heldout-6', 'names-heldout-7']) as NamesPart[]) {
  const notes = loadNamesSet(part);
  const s = scoreFindings(notes, (n) => scan(n.text));
  const t = s.byKind.NAME;
  const goal = part === 'names-tuning' ? GOAL.tuned : GOAL.heldout;
  console.log(`${part}: ${notes.length} notes, ${t.gold} names; recall ${recall(t).toFixed(3)} (${t.found}/${t.gold}, goal >= ${goal}), precision ${precision(t).toFixed(3)} (${t.right}/${t.predicted}, goal >= ${GOAL.precision}); all kinds precision ${precision(s.all).toFixed(3)}`);
  if (showMisses) {
    for (const m of s.misses) console.log(`    missed  ${m.note}  ${m.gold.kind} ${JSON.stringify(m.gold.text)}`);
    for (const f of s.falsePositives) console.log(`    wrong   ${f.note}  ${f.finding.kind} ${JSON.stringify(f.finding.text)} (${f.finding.rule})`);
  }
}
