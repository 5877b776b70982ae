/**
 * Capitalised words that are names on a list of given names but, in a clinical note, almost never a
 * person: eponyms (Addison, Whipple, Bell), scales and scores, drugs and brands, places used in
 * medicine, months and weekdays, and clinical words. The names-in-passing pass never reads these as
 * names on list evidence alone; a title or a label (detectors/names.ts) still can ("Dr Addison").
 * Lower case, one word each.
 */
// i18n-exempt: a word list the detector matches against, not a message.
const eponyms = `
addison addisonian apgar alzheimer babinski barrett barre battle bell bishop braden breslow brown broca brugada budd
burkitt charcot chiari chvostek cheyne child christmas conn cori crohn cushing dandy darier de dix down dubin duchenne
dupuytren ebstein edwards ehlers epley epworth erb fallot fanconi felty fisher fleischer fontan friedreich gilbert
glasgow gleason goodpasture graves guillain hartmann hashimoto heberden hirschsprung hodgkin holter horner huntington
jakob janeway johnson kaposi kawasaki kayser kernig klinefelter korotkoff korsakoff kussmaul lachman lewy lund browder
mallampati mallory marfan mcburney mcmurray meckel meniere menière morse murphy nissen noonan norton osgood osler
paget parkinson parkland patau peyronie phalen prader pugh raynaud reiter reye romberg roth rovsing schlatter schober
sjogren sjögren stevens stokes takayasu tay sachs tinel tourette trendelenburg trousseau turner virchow von waterlow
wegener weiss wells wernicke whipple willi wilms wilson wolff parkinson wallace whipple's abbey barthel bristol
canadian ottawa lund centor rockall blatchford ranson mcdonald hamilton beck moca folstein denver snellen ishihara
ziehl neelsen gram wright giemsa papanicolaou pap doppler holter swan ganz foley hickman groshong tenckhoff
mantoux coombs widal weil venturi guedel yankauer macintosh miller sengstaken blakemore minnesota bolam gillick fraser
achilles adam apple`;
// i18n-exempt: a word list the detector matches against, not a message.
const places = `
london paris boston manchester leeds sheffield brighton bristol coventry cambridge oxford birmingham glasgow edinburgh
dublin belfast cardiff liverpool newcastle nottingham leicester york mumbai delhi lagos accra nairobi cairo dubai
beijing shanghai hong kong singapore sydney melbourne toronto vancouver chicago houston texas california florida
mayo hopkins johns cleveland guy guys thomas thomas' barts royal victoria infirmary general st saint tesco asda
sainsbury sainsburys boots lloyds argos costa amazon google apple england scotland wales ireland britain africa
india china america europe asia wolverhampton harrogate york kent essex surrey devon cornwall
chester lincoln preston lancaster carlisle reading derby kirkby lonsdale dudley milton luton crawley bolton durham
hastings sutton warwick stafford kingston`;
// i18n-exempt: a word list the detector matches against, not a message.
const drugs = `
warfarin heparin augmentin tazocin clexane seretide nexium zoloft keppra lasix tegretol xarelto eliquis ventolin
lantus humalog levemir novorapid tresiba madopar sinemet oramorph oxynorm zomorph tramadol codeine cocodamol
panadol calpol nurofen voltarol buscopan gaviscon movicol senna lactulose dioralyte fortisip ensure ondansetron
cyclizine metoclopramide maxolon stemetil synacthen synthroid eltroxin thyroxine insulatard mixtard trelegy ellipta
symbicort fostair spiriva atrovent qvar clenil flixotide pulmicort epipen jext glucagen hypostop lucozade
tirofiban aspirin clopidogrel ticagrelor brilique plavix prasugrel rivaroxaban apixaban edoxaban dabigatran
pradaxa lixiana fragmin innohep tinzaparin dalteparin enoxaparin adcal calcichew fultium invita ferrous
amoxil flucloxacillin doxycycline clarithromycin meropenem teicoplanin vancomycin gentamicin co-amoxiclav
septrin trimethoprim nitrofurantoin macrobid cipro ciprofloxacin levofloxacin metronidazole flagyl
prednisolone hydrocortisone dexamethasone methotrexate humira enbrel remicade rituximab herceptin keytruda
omeprazole lansoprazole pantoprazole ranitidine zantac losec rennie mylanta laxido dulcolax microlax
sertraline citalopram fluoxetine prozac mirtazapine venlafaxine olanzapine quetiapine risperidone haloperidol
lorazepam diazepam valium temazepam zopiclone melatonin circadin pregabalin lyrica gabapentin neurontin
amitriptyline duloxetine cymbalta morphine fentanyl durogesic butrans buprenorphine methadone naloxone narcan
paracetamol ibuprofen naproxen diclofenac celecoxib colchicine allopurinol febuxostat metformin gliclazide
sitagliptin januvia jardiance forxiga empagliflozin dapagliflozin ozempic victoza trulicity mounjaro
ramipril lisinopril perindopril losartan candesartan amlodipine bisoprolol atenolol digoxin furosemide
bumetanide spironolactone eplerenone entresto atorvastatin simvastatin rosuvastatin ezetimibe gtn isosorbide
levothyroxine carbimazole propylthiouracil tamoxifen letrozole anastrozole zoladex bicalutamide tamsulosin
finasteride oxybutynin mirabegron sildenafil viagra cialis diprobase epaderm doublebase cetraben e45 canesten
allegra daktarin fucidin bactroban betnovate dermovate eumovate hydromol zerobase ensure altraplen`;
// i18n-exempt: a word list the detector matches against, not a message.
const clinical = `
oral iv im sc po pr topical
chest head back neck hand hands foot feet arm arms leg legs knee hip eye eyes ear ears heart lung lungs liver kidney
pain plan obs bloods blood urine sats temp pulse bp hr rr gcs news news2 ecg echo ct mri cxr axr usg us ogd ercp
staph strep strept pseudomonas klebsiella candida proteus enterococcus clostridium cdiff campylobacter salmonella
listeria legionella covid sars influenza
mdt ward bay bed side room rooms theatre theatres recovery resus majors minors triage cubicle
type grade stage class score scale index sign signs test tests rule rules criteria formula chart
settled stable alert confused drowsy sleepy eating drinking mobile bedbound independent
nil nbm npo tto ttos eta asap prn od bd tds qds nocte mane stat
right left bilateral anterior posterior
no yes ok okay fine well better worse same
also still then now later soon already again
post pre prior due care
amber red green
oxygen saline water glucose dextrose hartmann's
hba1c inr aptt crp wcc hb plt na urea creat egfr alt ast alp ggt tsh ft4 psa ca125 bnp
`;
// i18n-exempt: a word list the detector matches against, not a message.
const extra = `
admitted seen reviewed discussed plan impression assessment examination history
doctor nurse patient mother father son daughter wife husband brother sister friend
reg registrar consultant sho fy1 fy2 f1 f2 spr ct st hca porter physio ot slt dietitian pharmacist anaesthetist
jesus god christ lord allah buddha christian christians muslim jewish hindu sikh buddhist catholic protestant jehovah
english polish french german spanish italian portuguese romanian russian urdu arabic bengali punjabi somali tamil
mandarin cantonese turkish farsi kurdish lithuanian latvian welsh irish scottish british african asian caribbean
asked agreed told plan need needs due happy keen unable able going want wants tried trying decided advised please kindly
had has have will would could should shall must might also then please
hosp physical name names suite member members group clinical scientist new flat apt ave blvd round rock chipping
market high upper lower old great little north south east west central city county state national`;

export const PASSING_STOP: ReadonlySet<string> = new Set(`${eponyms} ${places} ${drugs} ${clinical} ${extra}`.split(/\s+/).filter(Boolean));

/**
 * Given names that are also everyday words (Drew, Guy, Chase, Olive, Miles, Frank): on list evidence alone
 * a name only after a word that takes a person (with, by, for, ask…), never at a sentence's start.
 */
export const WORDLIKE_NAMES: ReadonlySet<string> = new Set(
  // i18n-exempt: a word list the detector matches against, not a message.
  `ivy art drew guy chase pat sue hunter wade dale glen crystal pearl jade daisy lily poppy heather violet olive hazel
sage river sky storm brook robin jay chance destiny harmony melody patience charity honor justice miles sterling royal
major rex king prince earl baron frank ernest victor eve nova gene max clay penny ray long per else fine vita noble
urban hale dean rod tim ada asa`.split(/\s+/),
);

/** Drug names by their stems (Clindamycin, Cefalexin, Aldactone): never a name on list evidence alone. */
export const DRUG_SHAPE =
  /(?:mycin|micin|penem|cillin|cycline|floxacin|oxacin|azole|pril|sartan|olol|statin|dipine|parin|xaban|gatran|glutide|gliptin|flozin|mab|tinib|ciclovir|cyclovir|azepam|zolam|prazole|tidine|lexin|alexin|actone|olone|asone|terol|tropium|setron|profen|fenac|oxetine|aline|triptan|amide|semide|thiazide|ctone|vastatin|zepine|apine|idone|amine|caine)$/i;

/**
 * What follows an eponym, a drug or a place rather than a person: the word is then never read as a
 * name by list evidence ("Huntington clinic", "Fontan circulation", "Parkinson's team").
 */
export const THING_AFTER =
  /^(?:['’]s?)?[ \u00a0]*(?:-[A-Z]\w+[ \u00a0]*)?(?:(?!(?:and|or|the|with|to|from|at|in|on|of|for|by|is|was|has|had|will|who|which|that|his|her|their|a|an|our|my|your|said|says|asked|called)\b)[a-z]+[ \u00a0]+)?(?:disease|diseases|syndrome|sign|signs|palsy|score|scores|test|tests|scale|procedure|operation|manoeuvre|maneuver|criteria|classification|catheter|lymphoma|tumou?r|phenomenon|contracture|oesophagus|esophagus|anomaly|circulation|nodes?|lesions?|spots?|sounds?|breathing|respiration|index|class|thickness|formula|chart|rules?|point|clinic|ward|unit|hospital|infirmary|centre|center|team|nurse|medication|cells?|bodies|body|ulcer|fracture|reflex|triad|phenomenon|thyroiditis|encephalopathy|dementia|chorea|cyst|hernia|block|tube|line|mask|airway|needle|stage|staging|type|grade|protocol|regimen|units?|mg|mcg|ml|mmol|puffs?|tablets?|capsules?|inhaler|patch|pen|injection|infusion|\d+(?:\.\d+)?[ \u00a0]*(?:mg|mcg|micrograms?|g|ml|mL|units?|%|puffs?)|surgery|practice|road|street|lane|avenue|drive|close|house|court|medical|health|hall|school|college|university|trust|pharmacy|centre|group|foundation|hospice|care|court)\b/i;
