// Pairing: what the user pastes from `webfold pair` (its text or its --json
// output, or the bare token) becomes the daemon's address and token.
export const DEFAULT_PORT = 3457;
const TOKEN = /\b[0-9a-f]{64}\b/;
const WS_URL = /ws:\/\/(?:127\.0\.0\.1|localhost):(\d{1,5})\/ws/;
/** The pairing in `text`, or what is wrong with it. */
export function parsePairing(text) {
    const trimmed = text.trim();
    if (!trimmed) {
        return { error: "Paste the output of `webfold pair` (run it in a terminal) first." };
    }
    let url;
    let token;
    try {
        const json = JSON.parse(trimmed);
        if (typeof json.ws_url === "string")
            url = json.ws_url;
        if (typeof json.token === "string")
            token = json.token;
    }
    catch {
        // Not JSON: read the text form below.
    }
    if (url === undefined) {
        const other = /ws:\/\/([^/\s:]+)/.exec(trimmed);
        if (other && !WS_URL.test(trimmed)) {
            return {
                error: `The daemon must be on this computer (127.0.0.1), not ${other[1]}: paste what \`webfold pair\` printed.`,
            };
        }
        url = WS_URL.exec(trimmed)?.[0];
    }
    token = token ?? TOKEN.exec(trimmed)?.[0];
    if (!token || !TOKEN.test(token) || token.length !== 64) {
        return {
            error: "No token found: it is the 64-character line `Token:` of `webfold pair`. Paste its whole output.",
        };
    }
    let port = DEFAULT_PORT;
    if (url !== undefined) {
        const m = WS_URL.exec(url);
        if (!m) {
            return { error: `${url} is not the daemon's address on this computer: paste what \`webfold pair\` printed.` };
        }
        port = Number(m[1]);
    }
    if (!(port > 0 && port < 65536)) {
        return { error: `Port ${port} is not a port: paste what \`webfold pair\` printed.` };
    }
    return { wsUrl: `ws://127.0.0.1:${port}/ws`, token };
}
