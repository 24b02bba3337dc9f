// The outbound webhook transport: SSRF-safe POSTs over node:https (node:http to loopback only with allowLocal).
export { HttpWebhookTransport, type HttpWebhookTransportOptions } from './http-webhook-transport.js';
export { startLocalReceiver, type LocalWebhookReceiver, type ReceivedWebhook, type ReceiverReply } from './local-webhook-receiver.js';
