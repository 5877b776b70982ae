/**
 * Word shapes the name and address detectors share, and the capitalised words that are not
 * names (specialties, roles, ward words, eponyms…), so "Seen by Cardiology" or "Bell's palsy"
 * is not a name.
 */
/**
 * Letters as character-class contents: Latin with its accented letters (Latin-1 and Extended-A:
 * Sørensen, Wiśniewska, Šimić). Explicit ranges rather than \p{Lu}: V8 compiles these regexes
 * in a fraction of the time (the guard runs once per question, so its first run is what counts).
 * Extended-A counts as both cases (its capitals and small letters alternate code points).
 */
export const UPC = 'A-Z\\u00c0-\\u00d6\\u00d8-\\u00de\\u0100-\\u017f';
export const LOC = 'a-z\\u00df-\\u00f6\\u00f8-\\u00ff\\u0100-\\u017f';
export const LC = 'A-Za-z\\u00c0-\\u00d6\\u00d8-\\u00f6\\u00f8-\\u00ff\\u0100-\\u017f';

/**
 * A capitalised word: Smith, O'Malley, McAllister, Hartley-Jones, Sørensen, SMITH, O'MALLEY (not
 * the "'s" of a possessive). Kept simple on purpose: these patterns sit inside several regexes and
 * their compile time is most of the guard's first run.
 */
export const WORD = `[${UPC}][${LC}]*(?:['’-](?!s(?![${LC}]))[${LC}]+)*`;
/** A word in capitals (SMITH, O'MALLEY, HARTLEY-JONES). */
export const UPPER = `[${UPC}]{2,}(?:['’-][${UPC}]+)*(?![${LC}])`;
/** An initial: J. or J */
export const INITIAL = `[${UPC}]\\.?`;
export const PARTICLE = '(?:van|von|de|da|di|del|della|der|den|du|la|le|bin|binti|al|el|ter|ten|dos|das|ibn)';

/**
 * A person's name as written in notes: up to two initials, then one to four words (a particle such
 * as "van der" may come between; a word may be an initial: John A. Smith).
 */
export const NAME_SEQ = `(?:${INITIAL}[ \\u00a0]*){0,2}${WORD}(?:(?:[ \\u00a0]+${PARTICLE})*[ \\u00a0]+(?:[${UPC}]\\.|${WORD})){0,3}`;

/** "SMITH, John A." / "Rodriguez, Luis A." / "Chen, Wei-Lin" */
export const SURNAME_FIRST = `${WORD},[ \\t]*${WORD}(?:[ \\t]+(?:[${UPC}]\\.|${WORD}))?(?=[ \\t]*(?:$|[|(,.;\\n]|[ \\t]{2,}))`;

// i18n-exempt: a list of words to match, not a message
const stop = `
a an the and or of for to in on at by with from as is was be he she his her they we i it this that
patient pt patients mother father parents son daughter wife husband partner sister brother family carer
child baby infant boy girl man woman male female gentleman lady
dr doctor mr mrs ms miss nurse sister staff matron consultant registrar reg sho fy1 fy2 ct1 ct2 st3 st4 gp
team service services department dept unit ward wards clinic clinics hospital surgery practice centre center
trust health care home medical medicine general acute emergency ed ae icu itu hdu ccu amu sau mau theatre
cardiology respiratory neurology oncology haematology hematology nephrology renal urology gastroenterology
gastro endocrinology endocrine dermatology rheumatology psychiatry paediatrics pediatrics obstetrics
gynaecology gynecology orthopaedics orthopedics ortho ent ophthalmology radiology pathology microbiology
physio physiotherapy ot occupational therapy dietetics dietitian pharmacy pharmacist palliative geriatrics
anaesthetics anesthesia anaesthesia stroke vascular plastics maxfax infection infectious diseases
colorectal hepatology cardiothoracic neurosurgery critical intensive rehab rehabilitation outreach
colleague colleagues sir madam whom concern all everyone
referral re dear regards sincerely thanks thank yours kind best many
admission discharge summary letter note notes report plan impression diagnosis history review result results
day night morning evening today tomorrow yesterday weekend week month year
monday tuesday wednesday thursday friday saturday sunday
january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec
mdt sbar nhs dob mrn ssn id no number tel phone fax mobile email address
on-call oncall night-team duty bleep bleeped pager consultant's
unknown none nil nkda na n/a not known declined
ems paramedic paramedics ambulance police social worker sw chaplain interpreter
`;
export const STOP_WORDS: ReadonlySet<string> = new Set(stop.split(/\s+/).filter(Boolean));

/**
 * Eponyms and words that are people's names only sometimes: never looked for elsewhere in the text
 * after being found once (Bell → "Bell's palsy", Ward → "Ward 4", May → "May 2025").
 */
// i18n-exempt: a list of words to match, not a message
const common = `
will may june april august mark bill rose hope faith joy dawn summer amber ruby iris holly sunny grace
young little long white black brown green gray grey hill wood king church page hall ward bell bed bay day
cross north south east west park lane street road field fields rivers banks
parkinson graves cushing addison crohn hodgkin wilson down turner marfan alzheimer huntington barrett
wells murphy apgar glasgow foley whipple nissen epley kernig brudzinski babinski romberg rovsing hawkins
kennedy jobe holliday segar guillain barre wernicke charcot marie tooth horner brown sequard lewy creutzfeldt
jakob dix hallpike bell's swan ganz mallory weiss hartmann hartmann's allred nottingham fleischner
garden murphy's gleason breslow clark duke dukes child pugh curb ranson glasgow-blatchford rockall
westley wells' tokyo cepod
`;
export const COMMON_WORDS: ReadonlySet<string> = new Set(common.split(/\s+/).filter(Boolean));

/** Specialists and specialties: Gastroenterologist, Paediatrician, Psychiatrist, Orthopaedic Surgeon. */
const ROLE_WORD = /(?:ologists?|iatrists?|icians?|surgeons?|specialists?|practitioners?|therapists?|paediatric|pediatric|orthopaedic|orthopedic|ological|ology)$/i;

/** A word that is not a name. A single capital (an initial, "A.") never is. */
export function isStop(word: string): boolean {
  const bare = word.replace(/[.'’]+$/, '');
  if (/^[A-Z\u00c0-\u00de]$/.test(bare)) return false;
  return STOP_WORDS.has(bare.toLowerCase()) || ROLE_WORD.test(bare);
}

/** Words that end a town or street part of an address: titles and labels ("Dr", "Re", "Consultant"). */
// i18n-exempt: a list of words to match, not a message
const notTown = `dr mr mrs ms miss prof professor dear re to from cc patient pt name consultant gp referring tel phone fax
mobile email dob mrn nhs address signed yours regards sincerely thanks seen reviewed by`;
export const NOT_TOWN: ReadonlySet<string> = new Set(notTown.split(/\s+/).filter(Boolean));
