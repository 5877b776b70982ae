import type { Finding } from '../kinds.js';

/**
 * Numbers that identify a record, an account, a plan, a licence, a device or a vehicle: found
 * after their label (MRN, Hosp No, Acct#, Member ID, Licence No, 住院号, Serial no., VIN…), since
 * the same digits without one are lab values, codes or doses.
 */
const RECORD_LABEL =
  /(?<![A-Za-z\u00c0-\u00ff\u0100-\u017f])(?:MRN|MR#|MR\s*No\.?|medical record(?:\s*(?:number|no\.?|#))?|hosp(?:ital)?\.?\s*(?:no\.?|number|num|#|id)|hospital number|unit\s*(?:no\.?|number)|UR\s*No\.?|URN|case\s*(?:no\.?|number|#)|patient\s*(?:id|no\.?|number)|pt\s*id|lab\s*(?:no\.?|id|number|#|ref(?:erence)?)|accession(?:\s*(?:no\.?|number|#))?|acct\.?\s*(?:no\.?|#)?|account\s*(?:no\.?|number|#)|encounter\s*(?:no\.?|number|#|id)?|visit\s*(?:no\.?|number|#|id)|FIN|CSN|member\s*(?:id|no\.?|number|#)?|group\s*(?:id|no\.?|number|#)?|policy\s*(?:id|no\.?|number|#)|health\s*plan\s*(?:id|no\.?|number|#)|insurance\s*(?:id|no\.?|number|#)|subscriber\s*(?:id|no\.?|#)|medicaid\s*(?:id|no\.?|number|#)?|medicare\s*(?:id|no\.?|number|#)?|beneficiary\s*(?:id|no\.?|number)|licen[cs]e\s*(?:no\.?|number|#)|CDL|DEA\s*(?:no\.?|#|number)?|NPI|GMC\s*(?:no\.?|number)?|NMC\s*(?:pin|no\.?)?|RiO\s*(?:id|no\.?)|NNU\s*(?:no\.?|number)|EMIS\s*(?:no\.?|number)?|ref(?:erence)?\s*(?:no\.?|number|#)|specimen\s*(?:no\.?|id|number)|sample\s*(?:no\.?|id|number)|order\s*(?:no\.?|id|number|#)|request\s*(?:no\.?|id|number)|report\s*(?:no\.?|id|number)|claim\s*(?:no\.?|id|number|#)|ID|住院号|病案号|门诊号|病历号|病理号|医保卡号|医保号|社保卡号|就诊卡号|就诊号|ID号|检验号|标本号|登记号)\s*[:：#=.]?\s*/gi;
const DEVICE_LABEL =
  /(?<![A-Za-z\u00c0-\u00ff\u0100-\u017f])(?:serial(?:\s*(?:no\.?|number|#))?|S\/N|device\s*(?:id|serial|no\.?|number)|implant\s*(?:id|serial|no\.?)|IMEI|UDI|VIN|vehicle\s*(?:id|identification number|reg(?:istration)?)|licen[cs]e\s*plate|number\s*plate|reg(?:istration)?\s*(?:no\.?|number|plate)|车牌号?|设备编号|序列号)\s*[:：#=.]?\s*/gi;

/** A record number: letters and digits (with - / . inside), at least 3 digits; or digit groups with single spaces. */
const VALUE = /(?:\d{2,6}(?: \d{2,6}){1,4}|[A-Z]{0,4}[-]?\d[\dA-Z]*(?:[-/.]?[\dA-Z]+)*)(?![\w])/iy;

/**
 * Without a label: a code of capitals and six or more digits (K4471902, HN-55418, ED2503091177,
 * H25/10932) is a hospital number or accession number in clinical text; gene and drug codes,
 * ICD-10 and staging codes have fewer digits.
 */
const CODE = /(?<![\w/.-])[A-Z]{1,4}\d{0,4}[-/]?\d{4,}(?:[-/]\d+)*(?![\w]|[-/]\w)/g;

function valueAt(text: string, at: number): string | undefined {
  VALUE.lastIndex = at;
  const m = VALUE.exec(text);
  if (!m) return undefined;
  const v = m[0].replace(/[-/.]+$/, '');
  if ((v.match(/\d/g) ?? []).length < 3 || v.length < 4) return undefined;
  return v;
}

export function findRecordNumbers(text: string): Finding[] {
  // A value has three digits or more (a code six): without a digit there is none, and the labels are not compiled.
  if (!/[0-9]/.test(text)) return [];
  const out: Finding[] = [];
  for (const m of text.matchAll(RECORD_LABEL)) {
    // "ID" alone only as a label (ID: 123…), never inside words or as "ID 5 days".
    if (/^id\s*$/i.test(m[0]) && !/[:#]/.test(m[0])) continue;
    const at = m.index + m[0].length;
    const v = valueAt(text, at);
    if (v) out.push({ kind: 'MRN', start: at, end: at + v.length, text: v, rule: 'label' });
  }
  const labelled = [...out];
  for (const m of text.matchAll(DEVICE_LABEL)) {
    const at = m.index + m[0].length;
    const v = valueAt(text, at);
    if (v) labelled.push({ kind: 'DEVICE', start: at, end: at + v.length, text: v, rule: 'label' });
  }
  for (const m of text.matchAll(CODE)) {
    if (labelled.some((f) => f.start < m.index + m[0].length && m.index < f.end)) continue;
    if ((m[0].match(/\d/g) ?? []).length >= 6) out.push({ kind: 'MRN', start: m.index, end: m.index + m[0].length, text: m[0], rule: 'code' });
  }
  for (const f of labelled) if (f.kind === 'DEVICE') out.push(f); // (not a spread: a long text can hold more than a call takes as arguments)
  return out;
}
