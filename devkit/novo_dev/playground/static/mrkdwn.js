// Slack's mrkdwn as HTML: what a person reads in Slack, read here the same way.
//
// Agent text reaches Slack escaped (&lt; &gt; &amp;) and the bridge adds
// Slack's own tokens (<@U…> mentions, <!date^…> dates, links), so the
// tokens are taken out first, the rest is decoded and HTML-escaped, emphasis
// is applied, and the tokens go back in rendered. Nothing from a message
// ever reaches the page as markup of its own.

const TOKEN = /```([\s\S]*?)```|`([^`\n]+)`|<([^<>\n]+)>/g;
const HOLE = /\u0000(\d+)\u0000/g;

export function escapeHtml(text) {
  return String(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

function decodeEntities(text) {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

// A text object ({type: "mrkdwn"|"plain_text", text}) as HTML.
export function textHtml(node, ctx) {
  if (!node) return "";
  if (typeof node === "string") return escapeHtml(node);
  if (node.type === "mrkdwn" && !node.verbatim) return mrkdwnHtml(node.text || "", ctx);
  if (node.type === "mrkdwn") return escapeHtml(decodeEntities(node.text || ""));
  return escapeHtml(node.text || "");
}

export function plainText(node) {
  if (!node) return "";
  return typeof node === "string" ? node : String(node.text || "");
}

export function mrkdwnHtml(text, ctx) {
  const holes = [];
  const hole = (html) => `\u0000${holes.push(html) - 1}\u0000`;
  const marked = text.replace(TOKEN, (_, pre, code, token) => {
    if (pre !== undefined) return hole(`<pre>${escapeHtml(decodeEntities(pre.replace(/^\n|\n$/g, "")))}</pre>`);
    if (code !== undefined) return hole(`<code>${escapeHtml(decodeEntities(code))}</code>`);
    return hole(tokenHtml(token, ctx));
  });
  const lines = marked.split("\n").map((line) => {
    const quoted = /^(&gt;|>)\s?/.exec(line);
    const body = quoted ? line.slice(quoted[0].length) : line;
    return { quoted: Boolean(quoted), html: emphasis(escapeHtml(decodeEntities(body))) };
  });
  const out = [];
  let quote = [];
  const flush = () => {
    if (quote.length) out.push(`<blockquote>${quote.join("<br>")}</blockquote>`);
    quote = [];
  };
  for (const line of lines) {
    if (line.quoted) {
      quote.push(line.html);
      continue;
    }
    flush();
    out.push(line.html + "<br>");
  }
  flush();
  const html = out.join("").replace(/<br>$/, "").replace(/<br>(?=<blockquote>|<pre>)/g, "");
  return html.replace(HOLE, (_, n) => holes[Number(n)]);
}

// *bold*, _italic_, ~strike~ — only at word edges, so snake_case and 2*3*4 stay as typed.
function emphasis(html) {
  const edge = "(^|[^\\w*_~])";
  const end = "(?=$|[^\\w*_~])";
  return html
    .replace(new RegExp(`${edge}\\*(?!\\s)([^*\\n]*?[^\\s*])\\*${end}`, "g"), "$1<b>$2</b>")
    .replace(new RegExp(`${edge}_(?!\\s)([^_\\n]*?[^\\s_])_${end}`, "g"), "$1<i>$2</i>")
    .replace(new RegExp(`${edge}~(?!\\s)([^~\\n]*?[^\\s~])~${end}`, "g"), "$1<s>$2</s>");
}

function tokenHtml(token, ctx) {
  const [target, label] = splitOnce(token, "|");
  if (target.startsWith("@U") || target.startsWith("@W")) {
    const user = ctx.users.get(target.slice(1));
    const name = user ? user.display_name || user.real_name || user.name : label || target.slice(1);
    return `<span class="mention" data-user="${escapeHtml(target.slice(1))}">@${escapeHtml(name)}</span>`;
  }
  if (target.startsWith("#C") || target.startsWith("#G")) {
    const name = ctx.channels?.get(target.slice(1)) || label || target.slice(1);
    return `<span class="mention">#${escapeHtml(name)}</span>`;
  }
  if (target.startsWith("!date^")) return dateHtml(target, label);
  if (target.startsWith("!subteam^")) {
    const handle = ctx.groups?.get(target.slice("!subteam^".length));
    return `<span class="mention">${escapeHtml(handle ? `@${handle}` : label || "@group")}</span>`;
  }
  if (target.startsWith("!")) return `<span class="mention">@${escapeHtml(target.slice(1))}</span>`;
  if (/^(https?:|mailto:)/i.test(target)) {
    const text = label === undefined ? target : decodeEntities(label);
    return `<a href="${escapeHtml(target)}" target="_blank" rel="noopener noreferrer">${escapeHtml(text)}</a>`;
  }
  return escapeHtml(`<${decodeEntities(token)}>`);
}

function splitOnce(text, separator) {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

// <!date^UNIX^format[^link]|fallback>, in the viewer's own time zone as Slack shows it.
function dateHtml(target, fallback) {
  const [, seconds, format] = target.split("^");
  const when = new Date(Number(seconds) * 1000);
  if (!format || Number.isNaN(when.getTime())) return escapeHtml(decodeEntities(fallback || ""));
  const text = format.replace(/\{(\w+)\}/g, (whole, name) => formatDate(when, name) ?? whole);
  const title = decodeEntities(fallback || when.toISOString());
  return `<time datetime="${when.toISOString()}" title="${escapeHtml(title)}">${escapeHtml(text)}</time>`;
}

const DAY_MS = 86400000;

function relativeDay(when) {
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  const day = new Date(when);
  day.setHours(0, 0, 0, 0);
  const offset = Math.round((day - today) / DAY_MS);
  return { 0: "Today", [-1]: "Yesterday", 1: "Tomorrow" }[offset];
}

function ordinal(n) {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${tail}`;
}

export function formatDate(when, name) {
  const month = when.toLocaleString("en-US", { month: "long" });
  const monthShort = when.toLocaleString("en-US", { month: "short" });
  const weekday = when.toLocaleString("en-US", { weekday: "long" });
  const date = `${month} ${ordinal(when.getDate())}, ${when.getFullYear()}`;
  const dateShort = `${monthShort} ${when.getDate()}, ${when.getFullYear()}`;
  const dateLong = `${weekday}, ${date}`;
  const pad = (n) => String(n).padStart(2, "0");
  switch (name) {
    case "date_num":
      return `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}`;
    case "date":
      return date;
    case "date_short":
      return dateShort;
    case "date_long":
      return dateLong;
    case "date_pretty":
      return relativeDay(when) || date;
    case "date_short_pretty":
      return relativeDay(when) || dateShort;
    case "date_long_pretty":
      return relativeDay(when) || dateLong;
    case "time":
      return when.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit" });
    case "time_secs":
      return when.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit", second: "2-digit" });
    case "ago":
      return ago(when);
    default:
      return undefined;
  }
}

function ago(when) {
  const seconds = Math.round((Date.now() - when.getTime()) / 1000);
  const future = seconds < 0;
  const size = Math.abs(seconds);
  const [count, unit] =
    size < 60 ? [size, "second"] : size < 3600 ? [Math.round(size / 60), "minute"]
      : size < 86400 ? [Math.round(size / 3600), "hour"] : [Math.round(size / 86400), "day"];
  const span = `${count} ${unit}${count === 1 ? "" : "s"}`;
  return future ? `in ${span}` : `${span} ago`;
}
