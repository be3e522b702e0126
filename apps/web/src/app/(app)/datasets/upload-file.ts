export interface UploadedFile {
  fileId: string;
  fileName: string;
  sizeBytes: number;
  sha256: string;
}

/**
 * Sends a chosen file to `POST /api/uploads` as the raw request body. The
 * browser streams the File from disk, so a file of gigabytes never sits in the
 * page's memory. XMLHttpRequest rather than fetch: fetch reports no upload
 * progress, and a multi-gigabyte upload without a progress bar looks hung.
 */
export function uploadFile(file: File, onProgress: (sent: number, total: number) => void, signal?: AbortSignal): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", `/api/uploads?fileName=${encodeURIComponent(file.name)}`);
    request.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) {
        resolve(JSON.parse(request.responseText) as UploadedFile);
        return;
      }
      const message = request.responseText.trim();
      reject(new Error(message || `the upload of ${file.name} failed (HTTP ${request.status})`));
    };
    request.onerror = () => reject(new Error(`the upload of ${file.name} was interrupted (network error)`));
    request.onabort = () => reject(new DOMException(`the upload of ${file.name} was cancelled`, "AbortError"));
    signal?.addEventListener("abort", () => request.abort(), { once: true });
    request.send(file);
  });
}
