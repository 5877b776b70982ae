import { messages } from '../catalogue.js';

/** Connection failures: the network, DNS, TLS, proxies and redirects (src/core/net). */
export const netText = messages(
  'net',
  {
    proxyAuth: (host: string, hasUser: boolean, variable: string) =>
      `the proxy ${host} wants a user name and password (407); ${hasUser ? 'the user name or password in' : 'put them in'} ${variable}, e.g. ${variable}=http://user:password@${host}`,
    proxyRefused: 'connection refused',
    proxyDns: 'DNS lookup failed',
    proxyTimedOut: 'timed out',
    proxyUnreachable: (host: string, why: string) => `cannot connect to the proxy ${host} (${why}); check HTTPS_PROXY / HTTP_PROXY (NO_PROXY lists hosts that bypass it)`,
    proxyForbidsTunnel: (host: string, where: string, status: number) =>
      `the proxy ${host} refused to tunnel to ${where} (CONNECT, ${status}); ask its operator to allow this port, or set NO_PROXY if the service is inside your network`,
    proxyCannotReach: (host: string, where: string, status: number) =>
      `the proxy ${host} could not reach ${where} (${status}); check the address, or NO_PROXY if the service is inside your network`,
    proxyClosedTunnel: (host: string, where: string) =>
      `the proxy ${host} closed the connection when asked to tunnel to ${where} (CONNECT); ask its operator to allow this port, or set NO_PROXY if the service is inside your network`,
    proxySilent: (host: string, where: string, variable: string) =>
      `the proxy ${host} did not answer when asked to tunnel to ${where} (CONNECT); check ${variable}, or set NO_PROXY if the service is inside your network`,
    redirectLoop: (host: string) => `the service redirected too many times (a redirect loop at ${host}); check the address with: medchat config get base-url`,
    headersTooLarge: (where: string) => `${where} sent response headers larger than 16 KB (the limit); the service or a proxy in between is misbehaving, try again later`,
    malformedHttp: (where: string, code: string) => `${where} sent a malformed HTTP response (${code}); the service or a proxy in between is misbehaving, try again later`,
    refused: (where: string) => `cannot connect to ${where} (connection refused); check the address with: medchat config get base-url`,
    noHost: (where: string) => `cannot find the host ${where} (DNS lookup failed); check the address and your network`,
    untrustedTls: (where: string, code: string) => `the TLS certificate of ${where} is not trusted (${code}); for a private CA set NODE_EXTRA_CA_CERTS=/path/to/ca.pem`,
    connectTimeout: (where: string) => `timed out connecting to ${where}; check your network or proxy settings`,
  },
  {
    proxyAuth: (host, hasUser, variable) =>
      `代理 ${host} 要求用户名和密码（407）；${hasUser ? '请检查' : '请把它们写入'} ${variable}${hasUser ? ' 中的用户名或密码' : ''}，例如 ${variable}=http://user:password@${host}`,
    proxyRefused: '连接被拒绝',
    proxyDns: 'DNS 解析失败',
    proxyTimedOut: '超时',
    proxyUnreachable: (host, why) => `无法连接代理 ${host}（${why}）；请检查 HTTPS_PROXY / HTTP_PROXY（NO_PROXY 列出不走代理的主机）`,
    proxyForbidsTunnel: (host, where, status) =>
      `代理 ${host} 拒绝建立到 ${where} 的隧道（CONNECT，${status}）；请让代理管理员放行此端口，若服务在内网中，也可设置 NO_PROXY`,
    proxyCannotReach: (host, where, status) => `代理 ${host} 无法访问 ${where}（${status}）；请检查地址，若服务在内网中，请设置 NO_PROXY`,
    proxyClosedTunnel: (host, where) =>
      `请求建立到 ${where} 的隧道时，代理 ${host} 关闭了连接（CONNECT）；请让代理管理员放行此端口，若服务在内网中，也可设置 NO_PROXY`,
    proxySilent: (host, where, variable) => `请求建立到 ${where} 的隧道时，代理 ${host} 没有应答（CONNECT）；请检查 ${variable}，若服务在内网中，也可设置 NO_PROXY`,
    redirectLoop: (host) => `服务重定向次数过多（${host} 处出现重定向循环）；查看地址：medchat config get base-url`,
    headersTooLarge: (where) => `${where} 返回的响应头超过 16 KB 上限；服务或中间的代理工作异常，请稍后重试`,
    malformedHttp: (where, code) => `${where} 返回了格式错误的 HTTP 响应（${code}）；服务或中间的代理工作异常，请稍后重试`,
    refused: (where) => `无法连接 ${where}（连接被拒绝）；查看地址：medchat config get base-url`,
    noHost: (where) => `找不到主机 ${where}（DNS 解析失败）；请检查地址和网络`,
    untrustedTls: (where, code) => `${where} 的 TLS 证书不受信任（${code}）；如使用私有 CA，请设置 NODE_EXTRA_CA_CERTS=/path/to/ca.pem`,
    connectTimeout: (where) => `连接 ${where} 超时；请检查网络或代理设置`,
  },
);
