import QRCode from 'qrcode';

/**
 * The QR code of an address as SVG (error correction M, a 2-module quiet zone), rendered on the server so the page
 * loads no QR code of its own. Wallets scanning it get the bare address, which every TRON wallet reads.
 */
export function addressQrSvg(address: string): Promise<string> {
  return QRCode.toString(address, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } });
}
