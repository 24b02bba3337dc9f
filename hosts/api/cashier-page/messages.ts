/**
 * Every text of the payer page, in English and Simplified Chinese. `{name}` is filled in by the page script. The page
 * never shows node text or raw units: only these sentences, asset amounts in units, the address and, on a payment
 * request, the txids of the transfers seen (issue #34).
 */
const EN = {
  title: 'Payment',
  language: 'Language',
  heading: 'Pay with USDT or TRX',
  reference: 'Reference: {label}',
  loading: 'Loading…',
  send_to: 'Send to this address',
  qr_alt: 'QR code of the address {address}',
  copy: 'Copy address',
  copied: 'Address copied.',
  copy_failed: 'Could not copy. Select the address and copy it yourself.',
  network: 'Send only USDT (TRC20) or TRX on TRON.',
  network_detail: 'Other tokens or networks cannot be credited.',
  minimum: 'Minimum amount: {amounts}',
  no_minimum: 'No minimum amount.',
  expires_in: 'Time left: {time}',
  status_heading: 'Payment status',
  progress: 'Progress',
  step_waiting: 'Waiting for payment',
  step_received: 'Received',
  step_sweeping: 'Forwarding',
  step_done: 'Done',
  step_failed: 'Failed',
  status_waiting: 'Waiting for your payment. It shows here by itself a few seconds after the network confirms it.',
  status_received: 'Received {amount}. Confirm the payment below.',
  status_below: 'Received {amount}. The minimum is {minimum}: send at least {missing} more.',
  status_sweeping: 'Your payment is being forwarded to the merchant. This takes about a minute.',
  status_done: 'Done. The merchant has received your payment.',
  status_failed: 'The payment could not be forwarded to the merchant. Your funds are still on the address: you can try again.',
  received_legend: 'Received on this address',
  collect: 'Confirm payment',
  collect_amount: 'Confirm payment of {amount}',
  collect_hint: 'Press this once you have sent the payment: it is then forwarded to the merchant.',
  err_missing: 'This payment link is incomplete. Open the full link you were given.',
  err_invalid: 'This payment link is no longer valid: it has expired or was cancelled by the merchant. Ask the merchant for a new link. If you already paid, contact the merchant: your payment is not lost.',
  err_expired: 'This payment session has expired. Ask the merchant for a new link. If you already paid, contact the merchant: your payment is not lost.',
  err_network: 'Cannot reach the server. Retrying…',
  err_busy: 'Too many requests. Updates continue in a minute.',
  err_locked: 'A payment is already being forwarded. Please wait.',
  err_below: 'The amount on the address is below the minimum.',
  err_risk: 'This payment needs a manual review. Please contact the merchant.',
  err_generic: 'Something went wrong. Please try again.',
  paused: 'Updates paused after 10 minutes without activity.',
  resume: 'Resume updates',
  status_auto: 'Received {amount}. It is forwarded to the merchant by itself: there is nothing to press.',
  pay_heading: 'Pay {amount}',
  merchant: 'To {name}',
  amount_label: 'Amount',
  copy_amount: 'Copy amount',
  amount_copied: 'Amount copied.',
  network_one: 'Send only {asset} on TRON.',
  pay_within: 'Pay within {time}',
  deadline_passed: 'The time to pay is over.',
  req_awaiting: 'Send exactly {amount} to this address. This page updates by itself.',
  req_received: 'Received {received} of {amount}.',
  req_confirming_rest: 'A payment of {confirming} is being confirmed by the network: send the remaining {remaining}.',
  req_confirming_all: 'A payment of {confirming} is being confirmed by the network. It covers the rest: do not send it again.',
  req_closing: 'The time to pay is over: do not send more. A payment of {confirming} is being confirmed by the network.',
  req_partial: 'Received {received} of {amount}: send {remaining} more.',
  req_paid: 'Paid: being forwarded to the merchant.',
  req_paid_done: 'Paid. The merchant has received your payment.',
  req_paid_failed: 'Paid. Forwarding to the merchant did not finish: the merchant will complete it. You need do nothing.',
  req_overpaid: 'Overpaid by {excess}: contact the merchant about the difference.',
  req_expired: 'Expired: do not send. The time to pay is over.',
  req_expired_partial: 'Expired: do not send more. Received {received} of {amount}: contact the merchant.',
  req_paid_late: 'Arrived after the deadline: contact the merchant.',
  amount_left: 'Left to pay',
  transfers_heading: 'Transfers seen',
  transfer_txid: 'Transaction ID',
  transfer_pending: 'Being confirmed',
  transfer_confirmed: 'Confirmed',
  transfer_reverted: 'Dropped by the network: not counted',
  /** What joins two sentences of the summary: a space in English, nothing after a Chinese full stop. */
  sentence_gap: ' ',
} as const;

export type MessageKey = keyof typeof EN;
export type Messages = Readonly<Record<MessageKey, string>>;

const ZH_CN: Messages = {
  title: '付款',
  language: '语言',
  heading: '使用 USDT 或 TRX 付款',
  reference: '订单备注：{label}',
  loading: '加载中…',
  send_to: '向此地址转账',
  qr_alt: '地址 {address} 的二维码',
  copy: '复制地址',
  copied: '地址已复制。',
  copy_failed: '复制失败，请手动选择并复制地址。',
  network: '仅可发送 TRON 网络上的 USDT (TRC20) 或 TRX。',
  network_detail: '其他代币或网络的转账无法入账。',
  minimum: '最低金额：{amounts}',
  no_minimum: '无最低金额。',
  expires_in: '剩余时间：{time}',
  status_heading: '付款状态',
  progress: '进度',
  step_waiting: '等待付款',
  step_received: '已到账',
  step_sweeping: '转交中',
  step_done: '完成',
  step_failed: '失败',
  status_waiting: '等待您的付款。网络确认后几秒内会自动显示在这里。',
  status_received: '已收到 {amount}。请在下方确认付款。',
  status_below: '已收到 {amount}。最低金额为 {minimum}，请至少再发送 {missing}。',
  status_sweeping: '您的付款正在转交给商户，大约需要一分钟。',
  status_done: '完成。商户已收到您的付款。',
  status_failed: '付款未能转交给商户。资金仍在该地址上，您可以重试。',
  received_legend: '此地址已收到',
  collect: '确认付款',
  collect_amount: '确认付款 {amount}',
  collect_hint: '转账完成后请点击此按钮，付款随后将转交给商户。',
  err_missing: '付款链接不完整，请打开您收到的完整链接。',
  err_invalid: '此付款链接已失效：已过期或已被商户取消。请向商户索取新链接。如果您已付款，请联系商户，您的款项不会丢失。',
  err_expired: '本次付款会话已过期。请向商户索取新链接。如果您已付款，请联系商户，您的款项不会丢失。',
  err_network: '无法连接服务器，正在重试…',
  err_busy: '请求过于频繁，一分钟后继续更新。',
  err_locked: '已有一笔付款正在转交，请稍候。',
  err_below: '地址上的金额低于最低金额。',
  err_risk: '此付款需要人工审核，请联系商户。',
  err_generic: '出现问题，请重试。',
  paused: '10 分钟无操作，已暂停更新。',
  resume: '恢复更新',
  status_auto: '已收到 {amount}。款项将自动转交给商户，无需任何操作。',
  pay_heading: '支付 {amount}',
  merchant: '收款方：{name}',
  amount_label: '金额',
  copy_amount: '复制金额',
  amount_copied: '金额已复制。',
  network_one: '仅可发送 TRON 网络上的 {asset}。',
  pay_within: '请在 {time} 内付款',
  deadline_passed: '付款时间已过。',
  req_awaiting: '请向此地址准确发送 {amount}。本页面会自动更新。',
  req_received: '已收到 {received}（共 {amount}）。',
  req_confirming_rest: '一笔 {confirming} 的付款正在等待网络确认：请再发送剩余的 {remaining}。',
  req_confirming_all: '一笔 {confirming} 的付款正在等待网络确认，已足额：请勿重复付款。',
  req_closing: '付款时间已过：请勿再付款。一笔 {confirming} 的付款正在等待网络确认。',
  req_partial: '已收到 {received}（共 {amount}）：请再发送 {remaining}。',
  req_paid: '已付款：正在转交给商户。',
  req_paid_done: '已付款。商户已收到您的付款。',
  req_paid_failed: '已付款。转交给商户未能完成，商户将会处理，您无需任何操作。',
  req_overpaid: '多付了 {excess}：请联系商户处理差额。',
  req_expired: '已过期：请勿再付款。付款时间已结束。',
  req_expired_partial: '已过期：请勿再付款。已收到 {received}（共 {amount}）：请联系商户。',
  req_paid_late: '付款在截止时间之后到账：请联系商户。',
  amount_left: '待付金额',
  transfers_heading: '已检测到的转账',
  transfer_txid: '交易哈希',
  transfer_pending: '确认中',
  transfer_confirmed: '已确认',
  transfer_reverted: '已被网络撤销，不计入',
  sentence_gap: '',
};

/** The page's languages, in the order of its switch, with their own names. */
export const PAGE_LANGUAGES = [
  { tag: 'en', name: 'English', messages: EN },
  { tag: 'zh-CN', name: '简体中文', messages: ZH_CN },
] as const satisfies readonly { tag: string; name: string; messages: Messages }[];

export type PageLanguage = (typeof PAGE_LANGUAGES)[number]['tag'];

/** The messages of a language. */
export function messagesOf(tag: PageLanguage): Messages {
  return PAGE_LANGUAGES.find((l) => l.tag === tag)!.messages;
}

/**
 * The page language for an Accept-Language header (RFC 9110 §12.5.4): the highest-weighted range that matches one of
 * ours, `zh` in any form choosing Simplified Chinese (the only Chinese we have); English when nothing matches.
 */
export function pickLanguage(acceptLanguage: string | null): PageLanguage {
  const ranges = (acceptLanguage ?? '').split(',').map((part, index) => {
    const [range = '', ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
    return { range: range.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), index };
  }).filter((r) => r.range !== '' && Number.isFinite(r.q) && r.q > 0);
  ranges.sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { range } of ranges) {
    if (range === 'zh' || range.startsWith('zh-')) return 'zh-CN';
    if (range === 'en' || range.startsWith('en-')) return 'en';
  }
  return 'en';
}
