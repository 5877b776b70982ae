import type { Finding } from '../kinds.js';
import { ZH_GIVEN_CHARACTERS, ZH_SURNAMES } from './name-list-data.js';

/**
 * Chinese names written in passing, with no label (与张伟沟通后, 交给郑浩继续观察, 刘芳复查心电图): a
 * surname on the list (single or compound) and one or two characters of given names, standing
 * where a person stands: after a clause break or a word that takes a person (与, 和, 请, 由, 交给,
 * 告知…) and before a clause break or a verb or title that follows a person (沟通, 查房, 复查, 负责,
 * 会诊, 护士…). Medical words that begin with a surname's character (高血压, 白蛋白, 黄体酮, 石膏) are
 * never names.
 */
// i18n-exempt: word lists and patterns the detector matches, not messages.
const BEFORE = /(?:^|[\s，,。.：:；;、！!？?（(）)“"”]|与|和|跟|及|同|请|由|给|向|被|让|经|交给|交|接|告知|夜班|白班|值班|通知|联系|转告|询问|请示|汇报|报告|下午|上午|晚上|今日|今天|昨日|昨天|明天|今晚|昨晚|今夜|昨夜|明晚|明日|夜间|早上|今晨|今早|晚间|凌晨|中午|傍晚|科|室|组|主任|医师|医生|护士长|护士|大夫)$/;
const AFTER = /^(?:$|[\s，,。.：:；;、！!？?（(）)“"”]|沟通|查房|查看|查体|复查|负责|明早|明日|会诊|护士|医生|医师|主任|副主任|副教授|教授|大夫|老师|规培|住院医|主治|进修|实习|药师|技师|护师|班|表示|来电|接班|交班|值班|已|指示|同意|建议|认为|诉|说|交代|谈话|继续|完成|接诊|处理|观察|签字|知情|陪同|在场|到场|看过|查看过|评估|宣教|随访|告知|电话|联系|交|接|调整|开具|开立|开医嘱|安排|巡视|加用|停用|换药|更换|监测|拟|考虑|处置|送|看|查)/;
/** Words beginning with a surname's character that are not names. */
const NOT_NAMES =
  '高血压|高血脂|高血糖|高热|高钾|高钠|高钙|高危|高度|高压|高级|高龄|高峰|高值|白细胞|白蛋白|白带|白天|白色|白内障|黄疸|黄体酮|黄连素|黄斑|黄色|石膏|金黄色|金属|马来酸|马凡|周围|周边|周期|周末|周后|常规|常见|安静|安全|安眠|安排|方案|方法|方面|甘油|甘露醇|康复|易感|雷尼替丁|洪脉|尤其|于是|于今|任何|万一|左侧|左下|左上|左心|左室|左房|左手|左足|左肺|左眼|左耳|包括|包扎|关节|关注|关于|温度|温水|谷丙|谷草|钟点|全血|全身|全麻|连续|平素|平卧|平均|时间|程度|林可|毛细|齐全|向上|向下|江浙|胡言|孙子|孙女|和平|文化|文件|明显|明确|秦皮|苏醒|史上|武器|田间|范围|钱币|邱疹|潘生丁|汤剂|曹|龙胆|夏季|冬季|韦氏|易于|严重|严密|严格|戴口罩|程序|丁卡因|施行|蒋|管道|管路|司机|余下|余量|何时|何处|岳母|岳父|叶酸|叶片|卢戈|付费|石蜡|杜冷丁|罗红霉素|罗哌卡因|罗氏|沈|汪|范|陈旧|陈述|梁|宋|邓|曾经|曾有|曾行|曾于|彭|萧|董|袁|向家属|向患者|向病人|向患儿|向其|向上级|向主任|于患者|于家属|安家属|高敏|高渗|高流量|高频|高分辨|高脂|高尿酸|高凝|高热量|高蛋白|高糖|高位|高处|高于|高出|高达|白质|白肺|白膜|白斑|白苔|白昼|黄染|黄苔|黄褐|黄绿|方可|方能|方便|方向|方式|方位|于次日|于今日|于昨日|于入院|余同前|余无|余未|余正常|余均|余项|余部|常温|常用|常伴|常有|向心|向后|向前|向外|向内|关闭|关联|关键|温热|温和|温暖|温盐水|平稳|平静|平扫|平片|平时|平台|安好|安置|安返|安慰|安宁|安定|全程|全部|全天|全科|全院|全腹|全量|时有|时伴|时而|时感|时常|时间段|申请|成功|成人|成年|成形|成分|成为|石灰|金刚|金标准|毛发|毛囊|毛糙|田字|肖像|胡须|苏打|莫西沙星|葛根|董事|蓝色|牛奶|牛黄|焦虑|熊去氧胆酸|程序|章节|简单|简短|简要|纪录|罗列|韦格纳|马上|马桶|龙胆泻肝|齐全|尚可|尚平稳|尚未|尚好|尚稳定|尚无|易激|易疲劳|易出血|曾予|曾用|曾服|曾出现|文字|文献|林地|江湖|王牌|孔径|季节|季度|宋体|岳母|庄重|康复科|武装|段落|殷红|毕业|汤药|汪洋|沈阳|洪亮|涂抹|涂片|潘多拉|祝福|秦艽|邢台|邱疹|郑州|钱包|钟表|陆续|陈皮|陶瓷|雷击|顾虑|颜色|颜面|鲁莽|麦粒肿|黎明|任务|任意|伍用|何种|何故|侯诊|俞穴|倪|傅|冯|包块|包膜|包埋|卢|史料|叶片|叶酸|唐氏|夏天|姚|姜黄|孟|宋|尹|崔|常温|张力|张口|张开|曹|朱砂|李|杜绝|杨梅|柳|柴胡|梁|樊|段|毛|汤|江|沈|焦点|熊|牛|田|申|白|石|祁|祝|秦|程|章|简|纪|罗|翟|耿|聂|肖|胡|芦荟|苏|范|莫|萧|董|蒋|蓝|蔡|薛|袁|覃|许|谢|谭|贺|贾|赖|赵|邓|邢|邱|邵|邹|郑|郝|郭|金|钱|钟|闫|阎|陆|陈|陶|雷|韦|韩|顾|颜|马|骆|高|魏|鲁|麦|黄|黎|齐|龙|龚|蔡|贾|魏|薛|阎|雷|贺|倪|汤|滕|殷|罗|毕|郝|邬|安|常|乐|于|时|傅|皮疹|皮下|皮肤|齐|康|伍|余|元|卜|顾|孟|平|黄|和|穆|萧|尹';
const NOT_NAME_AT = new RegExp(`^(?:${NOT_NAMES.split('|').filter((w) => w.length >= 2).join('|')})`);
/** Whether the text at `at` begins a word that starts with a surname's character but is no name (安静, 高热, 黄疸). */
export const startsNotName = (text: string, at: number): boolean => NOT_NAME_AT.test(text.slice(at, at + 6));

/**
 * Common characters of given names that the source's short list lacks, compiled by hand from general usage (no
 * third-party list): the list above has 254, drawn from a few hundred sample names.
 */
const MORE_GIVEN =
  '伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉萍红鹏飞建国晓文辉林海燕波宁斌峰雪梅琳丹玲慧婷云龙东栋帆颖倩婧琪瑶欣怡佳悦涵晨阳浩宇轩然博睿凯俊鑫鸿志新利兵春夏秋冬荣松柏青芬兰翠凤莉薇蕾璐婕茜蓉颖昊哲瑞祥福禄寿喜德仁义礼智信忠孝廉耀光亮彬斐晖宏伟源泉江河湖川山岭峻岩石坚刚毅勤俭安康乐欢庆瑾瑜璇琦珊珍珠宝贵富国民立正兴盛昌隆小大秀淑惠桂兰凤美玉芳丽娟萍红燕霞英华军强兵勇斌涛磊鹏';

/** More common characters of given names, compiled by hand from general usage (round 3). */
const MORE_GIVEN_2 =
  '月凡振甜琴栋宏义仁毅诚顺达伦亮剑锋锐翔鹤腾骏驰鸣蔚澄湘沁溪泓潇洁冰凝霜露虹彩艺韵瑗瑛璋琛珏玮炜烨煜焕灿熙曦昕昱晗晴曼婉娴媛姗娅妍姝嫣娇婵莹萌蓓芸芷茹荷莲菲萱蕊芮若兮依伊思念忆恒慕婕姣瀚嵩崇巍森杉桐楠梓柯樱杏竹菊旺吉贤馨香卿钰铭锦钧银珊翠碧琼佩子涵诺彤雨嘉泽皓辰逸亚楠男永德岚露枫航健';

let lists: { surnames: string[]; given: Set<string> } | undefined;
function zhLists() {
  lists ??= {
    // Compound surnames first: 欧阳娜娜 is 欧阳 + 娜娜, not 欧 + 阳娜.
    surnames: ZH_SURNAMES.split('|').sort((a, b) => b.length - a.length),
    given: new Set(ZH_GIVEN_CHARACTERS + MORE_GIVEN + MORE_GIVEN_2),
  };
  return lists;
}

export function findChineseNamesInPassing(text: string): Finding[] {
  if (!/[\u4e00-\u9fff]/.test(text)) return [];
  const { surnames, given } = zhLists();
  const first = new Set(surnames.map((s) => s[0]!));
  const out: Finding[] = [];
  for (let i = 0; i < text.length; i++) {
    if (!first.has(text[i]!)) continue;
    const before = text.slice(Math.max(0, i - 3), i);
    if (!BEFORE.test(before)) continue;
    if (startsNotName(text, i)) continue;
    const surname = surnames.find((s) => text.startsWith(s, i));
    if (!surname) continue;
    const g = i + surname.length;
    // A surname and one or two given characters is a name on that evidence alone (the boundary before it is
    // where a word starts, and the word is no common word). What follows only chooses the length: a word that
    // follows a person (沟通, 继续, 执行) after two or one characters; else two, unless the second begins a
    // common word (张伟明显好转 → 张伟).
    const fits = (n: number) => {
      const part = text.slice(g, g + n);
      return part.length === n && [...part].every((c) => given.has(c));
    };
    let n = [2, 1].find((k) => fits(k) && AFTER.test(text.slice(g + k, g + k + 4))) ?? 0;
    if (!n && fits(2) && !startsNotName(text, g + 1) && !given.has(text[g + 2] ?? '')) n = 2;
    if (!n && fits(1)) n = 1;
    if (n) {
      const name = text.slice(i, g + n);
      out.push({ kind: 'NAME', start: i, end: g + n, text: name, rule: 'in passing' }); // i18n-exempt: a rule id
      if (text[i - 1] === '、') {
        for (const len of [2, 3]) {
          const at = i - 1 - len;
          const cand = text.slice(at, i - 1);
          if (at < 0 || !/^[\u4e00-\u9fff]+$/.test(cand) || !surnames.some((s) => cand.startsWith(s) && cand.length > s.length)) continue;
          if (!BEFORE.test(text.slice(Math.max(0, at - 3), at)) || out.some((f) => f.start <= at && at < f.end)) continue;
          out.push({ kind: 'NAME', start: at, end: i - 1, text: cand, rule: 'in passing' }); // i18n-exempt: a rule id
          break;
        }
      }
      i = g + n - 1;
    }
  }
  return out;
}
