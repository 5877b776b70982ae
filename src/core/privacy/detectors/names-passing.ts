import type { Finding } from '../kinds.js';
import { GIVEN_NAMES } from './name-list-data.js';
import { DRUG_SHAPE, PASSING_STOP, THING_AFTER, WORDLIKE_NAMES } from './names-stoplist.js';
import { COMMON_WORDS, LOC, UPC, isStop } from './words.js';

/**
 * Names written in passing, with no label or title: "Spoke to Tom this morning", "Plan discussed
 * with Oluwaseun, night registrar", "gastro (Rajesh) prefers…", "Priya from pharmacy". A capitalised
 * word is a name only when the evidence says so:
 *  - a context that names a person: a verb of speech or meeting before it (spoke to, discussed
 *    with, asked, escalated to), a role around it (gastro (Rajesh), Yusuf (consultant), Oluwaseun,
 *    night registrar; Aisha the specialist nurse; Priya from pharmacy); or
 *  - the list of given names (name-list-data.ts, lazily unpacked) on that evidence alone, anywhere
 *    in a sentence, in lists and possessives ("Ahmed's review"): context is needed to reject it, not
 *    to accept it (a drug's shape, where a place stands, an everyday word such as Drew or Miles
 *    with no word that takes a person before it);
 * and never when it is on the stoplist (eponyms, scales, drugs, places, months, clinical words:
 * names-stoplist.ts) or an eponym's shape follows it (Addison's disease, Whipple procedure).
 * A given name found this way takes the capitalised words after it (Emeka Obi, Javier Morales).
 */
// i18n-exempt: patterns the detector matches, not messages.
const WORD_RE = new RegExp(`(?<![${UPC}${LOC}0-9'’.@_/-])[${UPC}][${LOC}]+(?:[-'’][${UPC}${LOC}][${LOC}]+)*(?![${UPC}${LOC}0-9@_/]|-[0-9])`, 'g');
const ROLE =
  '(?:registrar|reg|consultant|sho|spr|f1|f2|fy1|fy2|ct1|ct2|st\\d|gp|nurse|sister|matron|hca|porter|physio|physiotherapist|ot|slt|dietitian|pharmacist|technician|anaesthetist|anesthetist|surgeon|doctor|resident|intern|fellow|attending|midwife|paramedic|practitioner|counsellor|counselor|coordinator|worker|chaplain|interpreter|secretary|receptionist|manager|lead|scientist|therapist|psychologist|[a-z]*ologist|[a-z]*iatrist|[a-z]*ician|son|daughter|wife|husband|partner|mother|father|brother|sister|friend|carer|neighbou?r|niece|nephew|cousin|aunt|uncle|grand-?daughter|grand-?son|colleague|student|crew)s?';
/** A verb of speech or meeting right before the word: the word after it is a person. */
const CUE_BEFORE =
  /(?:\b(?:spoke|speak|spoken|speaking|chatted|talked|talking|discussed|discussing|agreed|liaised|met|meeting|escalated|escalate|handed over|handover|hand over|covered|consented|bleeped|bleep|paged|page|contacted|contact|emailed|email|called|call|phoned|phone|rang|ring|telephoned|informed|inform|told|tell|asked|ask|reviewed|seen|examined|checked|led|leading|per|via|thanks|thank)(?:[ \u00a0]+(?:him|her|them|this|it|the patient|pt))?[ \u00a0]+(?:(?:to|with|by|from)[ \u00a0]+)?)$/i;
/** "Gareth and Leanne", "Fatima, Wei": a word joined to a name just found. */
const JOINED = /^(?:[ \u00a0]*,|[ \u00a0]+(?:and|&|or))[ \u00a0]+$/;
/** Done by a person ("done by Liesel", "glued by Emre"), under or per a person, a review or a talk with one. */
const BY_BEFORE =
  /(?:\bby|\b(?:hand|handed|handing|give|given|gave|pass|passed|send|sent|show|showed|shown|explained|reported|referred|over)[ \u00a0]+to|\bunder(?:[ \u00a0]+the[ \u00a0]+care[ \u00a0]+of)?|\bper|\b(?:review|reviews|discussion|conversation|call|chat|meeting|talk|handover|huddle|debrief)[ \u00a0]+with)[ \u00a0]+$/i;
/** "with Demetrios": after "with", any capitalised word that is no stopword, drug or dose. */
const WITH_BEFORE = /\bwith[ \u00a0]+$/i;
const NO_DOSE_AFTER = /^(?![ \u00a0]*\d)/;
/** A person's verb after a word not on the list ("Barnaby knows the story"). */
const PERSON_VERB_AFTER =
  /^[ \u00a0]+(?:knows|says|said|agrees|agreed|thinks|thought|wants|wanted|phoned|called|rang|asked|saw|took|gave|feels|felt|prefers|preferred|is aware|was aware|will (?:call|review|see|chase|discuss|come|ring|phone|speak|check|do)|happy|keen|aware)\b/;
/** A weaker cue (only with the list): "with Tom", "to Tom", "by Tom". */
const WEAK_BEFORE = /\b(?:with|by|for|and|or|ask|asked|tell|told)[ \u00a0]+$/i;
/** Where a place stands ("lives in Brighton", "seen at Derby"): list evidence alone is not enough. */
const PLACE_BEFORE = /\b(?:in|at|near|of|into|around|outside|nr|on)[ \u00a0]+$/i;
/** "Ahmed's review": a possessive; with what only a person has, a name whether or not it is on the list. */
const POSSESSIVE_AFTER = /^['’]s\b/;
const PERSON_POSSESSION_AFTER =
  /^['’]s[ \u00a0]+(?:review|plan|advice|opinion|view|decision|note|notes|letter|assessment|input|patients?|list|bleep|handover|request|suggestion|impression|recommendation|consent|signature|shift)\b/;
const ROLE_PAREN_BEFORE = new RegExp(`(?:^|[^${UPC}${LOC}])(?:[A-Za-z]+[ \\u00a0]+)?(?:${ROLE}|[a-z]*(?:ology|ics|ogy)|gastro|renal|cardio|neuro|ortho|resp|micro|haem|onc|derm|uro|ent|plastics|surgeons?|medics?|anaesthetics|itu|icu|ed|team|ambulance)[ \\u00a0]*\\($`, 'i');
const ROLE_PAREN_AFTER = new RegExp(`^[ \\u00a0]*\\((?:the[ \\u00a0]+)?(?:[A-Za-z0-9-]+[ \\u00a0]+){0,2}(?:${ROLE}|[a-z]*(?:ology|ogy)|reg|team)\\)`, 'i');
const APPOSITION = new RegExp(`^,[ \\u00a0]*(?:(?:the|our|a|an|his|her|their|my|your)[ \\u00a0]+)?(?:[A-Za-z0-9-]+[ \\u00a0]+){0,3}${ROLE}\\b`, 'i');
const THE_ROLE_AFTER = new RegExp(`^[ \\u00a0]+(?:the|our|his|her)[ \\u00a0]+(?:[A-Za-z0-9-]+[ \\u00a0]+){0,2}${ROLE}\\b`, 'i');
const FROM_AFTER = /^[ \u00a0]+(?:from|at|in|on)[ \u00a0]+(?:the[ \u00a0]+)?(?:[A-Za-z0-9-]+(?:['’]s)?[ \u00a0]+){0,3}(?:team|pharmacy|clinic|shift|rota|ward|unit|lab|laboratory|desk|office|service|department|microbiology|haematology|biochemistry|radiology|cardiology|[a-z]*ology|outreach|nights|days|call|switchboard|reception|work|services|support|liaison|safeguarding|chaplaincy|bank|agency)\b/i;
/** What a person is doing on a team ("Ravi leading, Eilidh on airway"): the word before it is a person. */
const DOING_AFTER = /^[ \u00a0]+(?:leading|covering|running|scrubbing|assisting|supervising|observing|shadowing|on (?:airway|call|nights|days|the bleep|compressions|drugs|scribe))\b/;
/** A task given to a person ("Farhan to discuss with IR", "Yasmin and Gintare to scrub"). */
const TASK_AFTER =
  /^[ \u00a0]+to[ \u00a0]+(?:discuss|see|review|scrub|call|phone|ring|chase|check|do|arrange|refer|book|contact|speak|follow|assess|examine|request|prescribe|start|stop|update|inform|complete|sign|consent|sort|write|order|take|bring|collect|visit|attend|escalate|bleep|confirm|ask|tell|liaise|lead|cover|assist)\b/;
/** "Yasmin and Gintare": the capitalised word joined before a name found. */
const JOINED_BEFORE = new RegExp(`(?:^|[^${UPC}${LOC}0-9'’-])([${UPC}][${LOC}]+(?:[-'’][${UPC}${LOC}][${LOC}]+)*)[ \\u00a0]*(?:[ \\u00a0]*,|[ \\u00a0]+(?:and|&))[ \\u00a0]+$`);
/** A sentence starts before it: the text start, a line start, ". " "! " "? " or a list's "- ". */
const SENTENCE_START = /(?:^|[\n.!?:;]|^[ \t]*[-*•]|[-–—][ \u00a0]*)[ \u00a0\t"'(]*$/;
/** Cues after the word, or after the name it starts ("Tom Reilly (day team)"). */
const CUES_AFTER = [PERSON_VERB_AFTER, ROLE_PAREN_AFTER, APPOSITION, TASK_AFTER, FROM_AFTER];
const NEXT_NAME = new RegExp(`^[ \\u00a0]+([${UPC}][${LOC}]+(?:[-'’][${UPC}${LOC}][${LOC}]+)*)(?![${UPC}${LOC}0-9])`);

let given: Set<string> | undefined;
/** The list, unpacked on first use (the data module is bundled into the guard's chunk only). */
function givenNames(): Set<string> {
  given ??= new Set(GIVEN_NAMES.split('|'));
  return given;
}

const stopped = (w: string) => isStop(w) || COMMON_WORDS.has(w.toLowerCase()) || PASSING_STOP.has(w.toLowerCase());
const upperFirst = new RegExp(`[${UPC}]`);

export function findNamesInPassing(text: string): Finding[] {
  if (!upperFirst.test(text)) return [];
  const names = givenNames();
  const out: Finding[] = [];
  let lastEnd = -1;
  for (const m of text.matchAll(WORD_RE)) {
    const start = m.index;
    if (start < lastEnd) continue;
    const word = m[0];
    if (stopped(word) || word.split(/[-'’]/).some((p) => PASSING_STOP.has(p.toLowerCase()))) continue;
    const after = text.slice(start + word.length, start + word.length + 60);
    if (THING_AFTER.test(after) || /^[\u4e00-\u9fff]/.test(after)) continue;
    const before = text.slice(Math.max(0, start - 50), start);
    const inList = names.has(word);
    // "Emeka Obi", "Javier Morales": capitalised words after the word, unless they are no names.
    let end = start + word.length;
    const possessive = POSSESSIVE_AFTER.test(after);
    for (let k = 0; k < 2 && !possessive; k++) {
      const next = NEXT_NAME.exec(text.slice(end, end + 40));
      if (!next || stopped(next[1]!)) break;
      end += next[0].length;
    }
    const tail = text.slice(end, end + 60);
    if (end > start + word.length && THING_AFTER.test(tail)) continue;
    const joinedToName = lastEnd >= 0 && JOINED.test(text.slice(lastEnd, start));
    const strong =
      joinedToName ||
      CUE_BEFORE.test(before) ||
      ROLE_PAREN_BEFORE.test(before) ||
      (BY_BEFORE.test(before) && !DRUG_SHAPE.test(word)) ||
      (WITH_BEFORE.test(before) && !DRUG_SHAPE.test(word) && NO_DOSE_AFTER.test(after)) ||
      THE_ROLE_AFTER.test(after) ||
      DOING_AFTER.test(after) ||
      PERSON_POSSESSION_AFTER.test(after) ||
      CUES_AFTER.some((re) => re.test(after) || re.test(tail));
    // The default is inverted: a word on the list of given names is a name on that evidence alone; context
    // only rejects it (a drug's shape, where a place stands, an everyday word at a sentence's start).
    let ok = false;
    if (strong) ok = inList || (!/^[A-Z][a-z]?$/.test(word) && !/(?:ed|ing|ly)$/.test(word));
    else if (inList && !DRUG_SHAPE.test(word) && !PLACE_BEFORE.test(before)) {
      ok = !WORDLIKE_NAMES.has(word.toLowerCase()) || (WEAK_BEFORE.test(before) && !SENTENCE_START.test(before));
    }
    if (!ok) continue;
    // Only a given name on the list takes the words after it; a word found by its context alone stands alone.
    if (!inList && !(ROLE_PAREN_AFTER.test(tail) || APPOSITION.test(tail) || FROM_AFTER.test(tail))) end = start + word.length;
    // "Yasmin and Gintare to scrub": the word joined before this name is one too.
    const joined = JOINED_BEFORE.exec(before);
    if (joined && start - before.length + joined.index + joined[0].indexOf(joined[1]!) >= lastEnd && !stopped(joined[1]!)) {
      const at = start - before.length + joined.index + joined[0].indexOf(joined[1]!);
      if (!SENTENCE_START.test(text.slice(Math.max(0, at - 50), at)) || names.has(joined[1]!) || strong) out.push({ kind: 'NAME', start: at, end: at + joined[1]!.length, text: joined[1]!, rule: 'in passing' }); // i18n-exempt: a rule id
    }
    out.push({ kind: 'NAME', start, end, text: text.slice(start, end), rule: 'in passing' }); // i18n-exempt: a rule id
    lastEnd = end;
  }
  return out;
}
