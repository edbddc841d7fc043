/** Files go through XMLHttpRequest, the one browser API that reports upload progress. */

/** 0 to 1. */
export type UploadProgress = (sent: number) => void

const JSON_ONLY = { accept: 'application/json' } as const

export async function postForm(url: string, body: URLSearchParams | FormData, onProgress: UploadProgress): Promise<unknown> {
  if (body instanceof URLSearchParams) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...JSON_ONLY, 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body,
      credentials: 'same-origin',
    })
    return response.json()
  }
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest()
    request.open('POST', url)
    // No content-type: the browser writes multipart's, with its boundary.
    request.setRequestHeader('accept', JSON_ONLY.accept)
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total)
    }
    request.onload = () => {
      try {
        resolve(JSON.parse(request.responseText))
      } catch (error) {
        reject(error)
      }
    }
    request.onerror = request.onabort = request.ontimeout = () => reject(new Error('The form could not be sent.'))
    request.send(body)
  })
}
