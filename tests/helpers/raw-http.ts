// One raw HTTP/1.1 exchange over a socket, for requests fetch refuses to send (control characters in a
// header, an oversized Host, a path fetch would normalise): resolves with everything the server wrote.
import { connect } from 'node:net'

export function rawHttp(port: number, request: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let out = ''
    socket.on('data', (d) => (out += d))
    socket.on('close', () => resolve(out))
    socket.on('error', () => resolve(out))
    socket.write(request)
  })
}

/** The status code of a raw response's status line. */
export const rawStatus = (response: string) => Number(response.split('\r\n')[0]!.split(' ')[1])
