import type { Finding } from '../kinds.js';
import { startsNotName } from './names-passing-zh.js';

/**
 * Chinese names by context: after a label (姓名：, 患者, 家属, 主治医师：…), before a title
 * (陈医生, 王主任), or with a relation (丈夫陈伟). A name is a common surname (single or compound)
 * and one or two more characters; text after a label that does not start with a surname
 * ("患者一般情况可") is not a name.
 */
const SURNAMES_1 =
  '王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程魏苏吕丁任沈姚卢姜崔钟谭陆汪范廖石金贾夏韦付方邹熊白孟秦邱侯江尹薛闫段雷龙黎史陶贺毛郝顾龚邵万覃武钱严戴莫孔向常汤康易乔赖文施洪辛柯庄詹欧甘祝包左鲁葛翟殷倪柳安齐骆尤谷关聂章温岳阎';
const SURNAMES_2 = ['欧阳', '司马', '上官', '诸葛', '东方', '皇甫', '尉迟', '公孙', '慕容', '令狐', '宇文', '长孙', '夏侯', '轩辕', '端木', '独孤'];
const HAN = '[\\u4e00-\\u9fff]';
const SURNAME = `(?:${SURNAMES_2.join('|')}|[${SURNAMES_1}])`;
/** Characters that begin a title or a word after a name: a name stops before them (王志刚主任, 杨帆主任, 陈伟电话). */
const TITLE_WORDS = '(?:主任|医生|医师|护士|护师|教授|先生|女士|老师|院长|同志|大夫|电话|手机|陪同|联系|（|\\()';

const LABEL =
  /(?:患者姓名|患儿姓名|病人姓名|姓名|患者|患儿|病人|家属|联系人|监护人|父亲|母亲|丈夫|妻子|儿子|女儿|配偶|记录医师|记录|上级医师|主治医师|主任医师|副主任医师|经治医师|住院医师|医师签名|医生签名|签名|申请医师|邀请医师|被邀请医师|会诊医师|送检医生|送检医师|检验者|审核者|报告医师|复核医师|接诊医生|转诊医生|主刀医生|麻醉医师|护士|责任护士|主任|科主任|护士长)[：:\s]*/g;
/** Any role label with a colon: 医师：, 申请医生：, 检验：, 审核者：, 报告人：, 操作员：. */
const ROLE_LABEL = /[\u4e00-\u9fff]{0,4}(?:医生|医师|护士|护师|技师|者|人|员|签名|签字|检验|审核|复核|主任)[：:]\s*/g;
const NAME_AFTER_LABEL = new RegExp(`${SURNAME}${HAN}{1,2}`, 'y');
const BEFORE_TITLE = new RegExp(`(${SURNAME}${HAN}{0,2}?)(?=(?:医生|主任|教授|护士长|院长|大夫|先生|女士)(?!医师))`, 'g');

function trimTitle(name: string): string {
  const t = new RegExp(TITLE_WORDS).exec(name.slice(1));
  return t ? name.slice(0, t.index + 1) : name;
}

export function findChineseNames(text: string): Finding[] {
  if (!/[\u4e00-\u9fff]/.test(text)) return [];
  const out: Finding[] = [];
  const add = (start: number, name: string, rule: string) => out.push({ kind: 'NAME', start, end: start + name.length, text: name, rule });

  for (const m of text.matchAll(LABEL)) {
    const at = m.index + m[0].length;
    NAME_AFTER_LABEL.lastIndex = at;
    const n = NAME_AFTER_LABEL.exec(text);
    // 患者安静入睡, 患者明显好转: a word after the label that only starts with a surname's character.
    if (!n || startsNotName(text, at)) continue;
    let name = n[0];
    // Stop before a title or a word that follows names (杨帆主任 → 杨帆).
    const titleAt = new RegExp(TITLE_WORDS).exec(text.slice(at + 1, at + name.length + 2));
    if (titleAt && titleAt.index + 1 < name.length) name = name.slice(0, titleAt.index + 1);
    if (name.length < 2) continue;
    add(at, name, 'label');
  }
  for (const m of text.matchAll(ROLE_LABEL)) {
    NAME_AFTER_LABEL.lastIndex = m.index + m[0].length;
    const n = NAME_AFTER_LABEL.exec(text);
    if (n) add(m.index + m[0].length, trimTitle(n[0]), 'label');
  }
  for (const m of text.matchAll(BEFORE_TITLE)) {
    // 陈医生: the surname alone is a name too. Not part of a longer word (主任医师, 骨科医生).
    const prev = text[m.index - 1] ?? '';
    if (/[\u4e00-\u9fff]/.test(prev) && !/[：:，,、。；\s给请由与和及向]/.test(prev)) continue;
    add(m.index, m[1]!, 'title');
  }
  return out;
}
