// QR scanning with the camera where the browser has BarcodeDetector
// (Chromium on Android and desktop); elsewhere the person pastes the code.

/**
 * startScanner shows the camera in video and calls found(text) with the
 * first QR code that reads as a nostrpair:// URI. It returns {stop}.
 */
export async function startScanner(video, found) {
  const detector = new globalThis.BarcodeDetector({ formats: ['qr_code'] });
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' } });
  video.srcObject = stream;
  await video.play();
  let stopped = false;
  const stop = () => {
    stopped = true;
    stream.getTracks().forEach((t) => t.stop());
    video.srcObject = null;
  };
  const tick = async () => {
    if (stopped) return;
    try {
      const codes = await detector.detect(video);
      const hit = codes.map((c) => c.rawValue).find((v) => v.startsWith('nostrpair://'));
      if (hit) return found(hit);
    } catch {
      // a frame that cannot be read yet; try the next one
    }
    setTimeout(tick, 250);
  };
  tick();
  return { stop };
}
