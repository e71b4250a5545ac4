import { expect } from 'chai';
import { STATUS_CODES } from 'node:http';
import { httpApi } from '../../lib/alert-test/http-api.js';

/** A fetch that records each request and answers with `status` and `body`. */
function fakeFetch(status: number, body: string) {
  const requests: { url: string; headers: Record<string, string> }[] = [];
  const fetchImpl = (async (url: URL, init: RequestInit) => {
    requests.push({ url: url.href, headers: init.headers as Record<string, string> });
    return new Response(body, { status, statusText: STATUS_CODES[status] });
  }) as typeof fetch;
  return { fetchImpl, requests };
}

describe('httpApi: GET with a JSON answer from a backend given by URL', () => {
  it('sends the credentials of the URL as Basic authorization, never in the URL, and asks below its path', async () => {
    const { fetchImpl, requests } = fakeFetch(200, '{"status":"success"}');
    const api = httpApi('Prometheus', 'https://bob:s%40cret@prom.example/prometheus', '--prometheus', fetchImpl);
    expect(api.name).to.equal('Prometheus at https://bob:***@prom.example/prometheus');
    expect(await api.get('/api/v1/query', { query: 'up', filter: ['a="1"', 'b="2"'] })).to.deep.equal({
      status: 'success',
    });
    expect(requests[0]!.url).to.equal(
      'https://prom.example/prometheus/api/v1/query?query=up&filter=a%3D%221%22&filter=b%3D%222%22',
    );
    expect(requests[0]!.headers.authorization).to.equal(`Basic ${Buffer.from('bob:s@cret').toString('base64')}`);
  });

  it("keeps the base URL's query (a proxy's api_key) on every request, and masks it in messages", async () => {
    const { fetchImpl, requests } = fakeFetch(200, '{"status":"success"}');
    const api = httpApi('Prometheus', 'https://prom.example/prometheus?api_key=k3y-1', '--prometheus', fetchImpl);
    expect(api.name).to.equal('Prometheus at https://prom.example/prometheus?api_key=***');
    await api.get('/api/v1/query', { query: 'up' });
    expect(requests[0]!.url).to.equal('https://prom.example/prometheus/api/v1/query?api_key=k3y-1&query=up');
  });

  it("names the backend's refusal with its own error, and an answer that is not JSON", async () => {
    const refused = httpApi(
      'Prometheus',
      'http://bob:pw@prom:9090',
      '--prometheus',
      fakeFetch(400, '{"status":"error","error":"parse error at char 3"}').fetchImpl,
    );
    expect(await refused.get('/api/v1/query', {}).catch((error: Error) => error.message)).to.equal(
      'Prometheus at http://bob:***@prom:9090 answered 400 Bad Request to GET /api/v1/query: parse error at char 3',
    );
    const html = httpApi(
      'Alertmanager',
      'http://am:9093',
      '--alertmanager',
      fakeFetch(200, '<html>login</html>').fetchImpl,
    );
    expect(await html.get('/api/v2/alerts', {}).catch((error: Error) => error.message)).to.equal(
      'Alertmanager at http://am:9093 answered 200 OK with no JSON to GET /api/v2/alerts: <html>login</html>',
    );
  });

  it('asks whether the flag gives the right API when the path is not found (another server, a missing prefix)', async () => {
    // Alertmanager's own 404, as Prometheus's URL: its text ends in a newline, which made a blank line.
    const elsewhere = httpApi(
      'Prometheus',
      'http://am:9093',
      '--prometheus',
      fakeFetch(404, '404 page not found\n').fetchImpl,
    );
    expect(await elsewhere.get('/api/v1/rules', {}).catch((error: Error) => error.message)).to.equal(
      "Prometheus at http://am:9093 answered 404 Not Found with no JSON to GET /api/v1/rules: 404 page not found: is --prometheus the base URL of Prometheus's HTTP API?",
    );
    // A server whose API answers JSON for a path it does not have was told no more than its 404.
    const jsonApi = httpApi(
      'Alertmanager',
      'http://prom:9090',
      '--alertmanager',
      fakeFetch(404, '{"status":"error","error":"not found"}').fetchImpl,
    );
    expect(await jsonApi.get('/api/v2/alerts', {}).catch((error: Error) => error.message)).to.equal(
      "Alertmanager at http://prom:9090 answered 404 Not Found to GET /api/v2/alerts: not found: is --alertmanager the base URL of Alertmanager's HTTP API?",
    );
  });

  it('masks the credentials it sent where an answer it quotes repeats them', async () => {
    const basic = Buffer.from('bob:s3cr3t-pw').toString('base64');
    const echo = httpApi(
      'Prometheus',
      'http://bob:s3cr3t-pw@prom:9090',
      '--prometheus',
      fakeFetch(401, `bad token ${basic} (s3cr3t-pw)`).fetchImpl,
    );
    expect(await echo.get('/api/v1/query', {}).catch((error: Error) => error.message)).to.equal(
      'Prometheus at http://bob:***@prom:9090 answered 401 Unauthorized with no JSON to GET /api/v1/query: bad token *** (***)',
    );
    const json = httpApi(
      'Alertmanager',
      'http://bob:s3cr3t-pw@am:9093',
      '--alertmanager',
      fakeFetch(400, '{"status":"error","error":"user bob:s3cr3t-pw refused"}').fetchImpl,
    );
    expect(await json.get('/api/v2/alerts', {}).catch((error: Error) => error.message)).to.equal(
      'Alertmanager at http://bob:***@am:9093 answered 400 Bad Request to GET /api/v2/alerts: user bob:*** refused',
    );
  });

  it('refuses a URL that is not http(s), with its credentials masked', () => {
    expect(() => httpApi('Prometheus', 'ftp://bob:pw@host/', '--prometheus')).to.throw(
      'expected an http(s) URL, got "ftp://bob:***@host/"',
    );
    expect(() => httpApi('Prometheus', 'localhost:9090', '--prometheus')).to.throw(
      'expected an http(s) URL, got "localhost:9090"',
    );
  });
});
