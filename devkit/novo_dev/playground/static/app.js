// The playground page: the local Slack's channels and modals, live, and a person clicking in them.
//
// The page polls GET /api/state and redraws only what changed (a modal being
// filled in is never redrawn under the person's fingers). Every click, pick,
// search and submission is POSTed to /api/intent; the server sends the bridge
// the signed payload Slack would, so the page holds no Slack logic of its own.

import { h } from "./dom.js";
import { renderBlocks } from "./blocks.js";
import { createForm } from "./inputs.js";
import { mrkdwnHtml, plainText } from "./mrkdwn.js";

const POLL_MS = 500;
const TOAST_MS = 6000;
const NEAR_BOTTOM_PX = 120;

const page = {
  user: null,
  channel: null,
  users: new Map(),
  channelNames: new Map(),
  groups: new Map(),
  usersKey: "",
  channelsKey: "",
  messagesKey: "",
  modalKey: "",
  modal: null,
  form: null,
  localErrors: {},
  timer: null,
  asked: 0,
  shown: 0,
};

const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ polling

async function refresh() {
  clearTimeout(page.timer);
  const ticket = ++page.asked;
  try {
    const query = page.user ? `?user=${encodeURIComponent(page.user)}` : "";
    const response = await fetch(`/api/state${query}`, { cache: "no-store" });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const snapshot = await response.json();
    if (ticket < page.shown) return; // a later answer is already on screen
    page.shown = ticket;
    render(snapshot);
    $("connection").hidden = true;
  } catch (error) {
    $("connection").hidden = false;
    $("connection").textContent = `Not connected (${error.message}) — is the demo still running?`;
  } finally {
    page.timer = setTimeout(refresh, POLL_MS);
  }
}

function render(snapshot) {
  page.channelNames = new Map(Object.entries(snapshot.names?.channels || {}));
  page.groups = new Map(Object.entries(snapshot.names?.groups || {}));
  renderPeople(snapshot);
  renderChannels(snapshot.channels);
  const channel = snapshot.channels.find((c) => c.id === page.channel) || snapshot.channels[0];
  if (channel) renderMessages(channel);
  renderModal(snapshot.modal);
  document.body.dataset.ready = "true";
}

// ------------------------------------------------------------------ who you are

function renderPeople(snapshot) {
  const key = JSON.stringify(snapshot.users);
  if (key === page.usersKey) return;
  page.usersKey = key;
  page.users = new Map(snapshot.users.map((u) => [u.id, u]));
  if (!page.users.has(page.user)) page.user = snapshot.users[0]?.id || null;
  const select = $("who");
  select.replaceChildren(...snapshot.users.map((u) => h("option", { value: u.id }, `${u.display_name} (@${u.name})`)));
  select.value = page.user || "";
  $("team").textContent = snapshot.team;
  page.messagesKey = "";
}

function chooseUser(userId) {
  page.user = userId;
  localStorage.setItem("playground.user", userId);
  const url = new URL(window.location);
  url.searchParams.set("as", userId);
  history.replaceState(null, "", url);
  page.messagesKey = "";
  page.modalKey = "";
  refresh();
}

// ------------------------------------------------------------------ channels and messages

function renderChannels(channels) {
  const key = JSON.stringify([page.channel, channels.map((c) => [c.id, c.name, c.messages.length])]);
  if (key === page.channelsKey) return;
  page.channelsKey = key;
  if (!channels.some((c) => c.id === page.channel)) page.channel = channels[0]?.id || null;
  $("channels").replaceChildren(...channels.map((c) => h("li", {},
    h("button", {
      type: "button",
      class: c.id === page.channel ? "channel current" : "channel",
      dataset: { channel: c.id },
      onclick: () => {
        page.channel = c.id;
        page.channelsKey = "";
        page.messagesKey = "";
        refresh();
      },
    }, `${c.dm ? "@" : "#"} ${c.name}`, h("span", { class: "count" }, String(c.messages.length))))));
}

function renderMessages(channel) {
  const key = JSON.stringify([page.user, channel]);
  if (key === page.messagesKey) return;
  page.messagesKey = key;
  const list = $("messages");
  const nearBottom = list.scrollHeight - list.scrollTop - list.clientHeight < NEAR_BOTTOM_PX;
  $("channel-name").textContent = `${channel.dm ? "@" : "#"} ${channel.name}`;
  list.replaceChildren(...(channel.messages.length
    ? channel.messages.map((m) => message(channel, m))
    : [h("p", { class: "empty" }, "Nothing here yet: the bridge posts each pending interaction as it finds it.")]));
  if (nearBottom) list.scrollTop = list.scrollHeight;
}

function message(channel, m, isReply = false) {
  const ctx = {
    users: page.users,
    channels: page.channelNames,
    groups: page.groups,
    confirm,
    act: (block, el, extra) => {
      const base = { user: page.user, channel: channel.id, ts: m.ts, action_id: el.action_id };
      return sendIntent(extra.option
        ? { ...base, kind: "overflow", option: extra.option }
        : { ...base, kind: "click", block_id: block.block_id, value: el.value ?? null });
    },
  };
  const body = m.blocks?.length ? renderBlocks(m.blocks, ctx) : [h("div", { class: "section-text", html: mrkdwnHtml(m.text || "", ctx) })];
  const when = new Date(Number(m.ts) * 1000);
  const meta = h("div", { class: "message-meta" },
    h("b", {}, "novo"), h("span", { class: "app-badge" }, "APP"),
    h("time", { datetime: when.toISOString(), title: when.toString() }, when.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit" })),
    m.edited ? h("span", { class: "edited" }, "(edited)") : null,
    m.ephemeral ? h("span", { class: "only-you" }, "Only visible to you") : null);
  const replies = (m.replies || []).length
    ? h("div", { class: "thread" }, h("div", { class: "thread-count" }, `${m.replies.length} ${m.replies.length === 1 ? "reply" : "replies"}`),
      m.replies.map((r) => message(channel, r, true)))
    : null;
  return h("article", {
    class: ["message", m.ephemeral ? "ephemeral" : "", isReply ? "reply" : ""].join(" ").trim(),
    dataset: { ts: m.ts, interaction: m.metadata?.event_payload?.interaction_id },
  }, h("div", { class: "avatar", "aria-hidden": "true" }, "N"), h("div", { class: "message-main" }, meta, h("div", { class: "message-blocks" }, body), replies));
}

// ------------------------------------------------------------------ modals

function renderModal(modal) {
  const overlay = $("modal");
  if (!modal) {
    page.modal = null;
    page.modalKey = "";
    page.form = null;
    overlay.hidden = true;
    return;
  }
  const key = `${modal.id}:${modal.hash}`;
  if (key !== page.modalKey) {
    page.modalKey = key;
    page.modal = modal;
    page.localErrors = {};
    buildModal(modal);
  }
  page.form.showErrors({ ...modal.errors, ...page.localErrors });
  overlay.hidden = false;
}

function buildModal(modal) {
  const form = createForm({ users: page.users, loadOptions });
  page.form = form;
  const ctx = {
    users: page.users,
    channels: page.channelNames,
    groups: page.groups,
    confirm,
    input: form.inputBlock,
    act: (block, el) => sendIntent({
      kind: "view_click", user: page.user, view_id: modal.id, action_id: el.action_id, value: el.value ?? null, values: form.values(),
    }),
  };
  const dialog = $("modal-form");
  dialog.dataset.viewId = modal.id;
  dialog.dataset.callbackId = modal.callback_id;
  $("modal-title").textContent = plainText(modal.title);
  $("modal-body").replaceChildren(...renderBlocks(modal.blocks, ctx));
  const close = $("modal-close");
  close.textContent = plainText(modal.close) || (modal.submit ? "Cancel" : "Close");
  const submit = $("modal-submit");
  submit.hidden = !modal.submit;
  submit.textContent = plainText(modal.submit) || "Submit";
  submit.disabled = false;
  $("modal-back").hidden = modal.depth < 2;
}

async function submitModal(event) {
  event.preventDefault();
  const modal = page.modal;
  if (!modal || !page.form) return;
  page.localErrors = page.form.requiredErrors();
  page.form.showErrors({ ...page.localErrors });
  if (Object.keys(page.localErrors).length) return;
  const submit = $("modal-submit");
  submit.disabled = true;
  try {
    const result = await sendIntent({ kind: "submit", user: page.user, view_id: modal.id, values: page.form.values() });
    if (result?.ack?.response_action === "errors" && page.form) page.form.showErrors(result.ack.errors || {});
  } finally {
    submit.disabled = false;
  }
}

async function closeModal() {
  if (page.modal) await sendIntent({ kind: "close", user: page.user, view_id: page.modal.id });
}

async function loadOptions(blockId, actionId, query) {
  if (!page.modal) return null;
  const result = await sendIntent({
    kind: "options", user: page.user, view_id: page.modal.id, block_id: blockId, action_id: actionId, query,
  }, { quiet: true });
  return result?.ack || null;
}

// ------------------------------------------------------------------ talking to the server

async function sendIntent(intent, { quiet = false } = {}) {
  let body = null;
  try {
    const response = await fetch("/api/intent", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ intent }),
    });
    body = await response.json().catch(() => null);
    if (!response.ok) toast(body?.error || `The playground answered HTTP ${response.status}`);
    else if (body && body.status >= 400) toast(`The bridge answered HTTP ${body.status}: ${JSON.stringify(body.ack)}`);
  } catch (error) {
    toast(`Could not reach the playground: ${error.message}`);
  }
  if (!quiet) refresh();
  return body;
}

function toast(text) {
  const note = h("div", { class: "toast", role: "status" }, text);
  $("toasts").append(note);
  setTimeout(() => note.remove(), TOAST_MS);
}

// A button's `confirm` dialog, as Slack asks before a click it was told to double-check.
function confirm(spec) {
  return new Promise((resolve) => {
    const done = (answer) => {
      overlay.remove();
      resolve(answer);
    };
    const overlay = h("div", { class: "overlay confirm" },
      h("div", { class: "dialog", role: "alertdialog", "aria-modal": "true" },
        h("h2", {}, plainText(spec.title) || "Are you sure?"),
        h("div", { class: "dialog-body", html: mrkdwnHtml(plainText(spec.text), { users: page.users, channels: page.channelNames, groups: page.groups }) }),
        h("div", { class: "dialog-actions" },
          h("button", { type: "button", class: "btn", onclick: () => done(false) }, plainText(spec.deny) || "Cancel"),
          h("button", { type: "button", class: `btn ${spec.style === "danger" ? "danger" : "primary"}`, onclick: () => done(true) },
            plainText(spec.confirm) || "Yes"))));
    document.body.append(overlay);
  });
}

// ------------------------------------------------------------------ start

function start() {
  const asked = new URL(window.location).searchParams.get("as");
  page.user = asked || localStorage.getItem("playground.user");
  $("who").addEventListener("change", (event) => chooseUser(event.target.value));
  $("modal-form").addEventListener("submit", submitModal);
  $("modal-close").addEventListener("click", closeModal);
  $("modal-back").addEventListener("click", closeModal);
  document.addEventListener("click", () => document.querySelectorAll(".menu").forEach((m) => { m.hidden = true; }));
  refresh();
}

start();
