"use strict";
// Every value from the service goes into the page with textContent, never innerHTML.
const api = "/admin/v1/";
let currentApp = null;

function $(id) { return document.getElementById(id); }
function token() { return sessionStorage.getItem("activate-admin-token"); }

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function call(method, path, body) {
  const headers = { "Authorization": "Bearer " + token(), "Accept": "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
                                               cache: "no-store", credentials: "omit", redirect: "error" });
  let answer = null;
  try { answer = await response.json(); } catch (e) { answer = null; }
  if (response.status === 401) { signOut(); throw new Error("The token was refused."); }
  if (!response.ok) {
    const error = answer && answer.error ? answer.error : {};
    throw new Error((error.keyPath ? error.keyPath + ": " : "") + (error.message || ("HTTP " + response.status)));
  }
  return answer;
}

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text === undefined || text === null ? "" : String(text);
  row.appendChild(td);
  return td;
}

function fill(tableID, items, columns) {
  const body = $(tableID).querySelector("tbody");
  body.replaceChildren();
  for (const item of items) {
    const row = document.createElement("tr");
    for (const column of columns) cell(row, typeof column === "function" ? column(item) : item[column]);
    body.appendChild(row);
  }
  return body;
}

function segment(text) { return encodeURIComponent(text); }

async function loadApps() {
  const answer = await call("GET", "applications");
  const body = fill("apps", answer.applications, ["appID", "documents", "domains", "activeCodes", a => a.settings ? "yes" : "no"]);
  body.querySelectorAll("tr").forEach((row, index) => {
    const appID = answer.applications[index].appID;
    const link = document.createElement("button");
    link.className = "app";
    link.dataset.app = appID;
    link.textContent = appID;
    link.addEventListener("click", () => openApp(appID).catch(e => showError(e.message)));
    row.firstChild.replaceChildren(link);
  });
}

async function openApp(appID) {
  currentApp = appID;
  $("app-title").textContent = appID;
  $("app-panel").hidden = false;
  $("issued").hidden = true;
  const documents = (await call("GET", "applications/" + segment(appID) + "/documents")).documents;
  fill("documents", documents, ["name", d => d.summary.host, d => d.summary.auth.join(", "), d => d.summary.warnings.join("; "), "updatedAt"]);
  const select = $("issue-document");
  select.replaceChildren();
  for (const d of documents) {
    const option = document.createElement("option");
    option.value = d.name;
    option.textContent = d.name;
    select.appendChild(option);
  }
  const domains = (await call("GET", "applications/" + segment(appID) + "/domains")).domains;
  fill("domains", domains, ["domain", "document"]);
  await loadSettings();
  await loadCodes();
}

async function loadSettings() {
  const path = "applications/" + segment(currentApp) + "/settings";
  const response = await fetch(api + path, { headers: { "Authorization": "Bearer " + token(), "Accept": "application/json" },
                                              cache: "no-store", credentials: "omit", redirect: "error" });
  if (response.status === 404) {
    $("settings-json").value = "";
    $("settings-status").textContent = "No client policies: onboarding applies SAP's defaults.";
    $("settings-delete").hidden = true;
    return;
  }
  const answer = await call("GET", path);
  $("settings-json").value = JSON.stringify(answer.settings, null, 2);
  $("settings-status").textContent = "Stored " + answer.updatedAt + " (sha256 " + String(answer.sha256 || "").slice(0, 12) + ").";
  $("settings-delete").hidden = false;
}

async function saveSettings(event) {
  event.preventDefault();
  let settings;
  try { settings = JSON.parse($("settings-json").value); } catch (e) { throw new Error("settingsExchange: not JSON (" + e.message + ")"); }
  await call("PUT", "applications/" + segment(currentApp) + "/settings", settings);
  showError("");
  await loadSettings();
  await loadApps();
}

async function deleteSettings() {
  await call("DELETE", "applications/" + segment(currentApp) + "/settings");
  await loadSettings();
  await loadApps();
}

async function loadCodes() {
  const status = $("code-status").value;
  const answer = await call("GET", "applications/" + segment(currentApp) + "/codes" + (status ? "?status=" + segment(status) : ""));
  const body = fill("codes", answer.codes, ["id", "status", "usesLeft", "document", "label", "expiresAt", () => ""]);
  body.querySelectorAll("tr").forEach((row, index) => {
    const code = answer.codes[index];
    if (code.status !== "active") return;
    const button = document.createElement("button");
    button.className = "revoke";
    button.dataset.id = String(code.id);
    button.textContent = "Revoke";
    button.addEventListener("click", () => revoke(code.id).catch(e => showError(e.message)));
    row.lastChild.replaceChildren(button);
  });
}

async function revoke(id) {
  await call("DELETE", "applications/" + segment(currentApp) + "/codes/" + segment(String(id)));
  await loadCodes();
  await loadApps();
}

async function issue(event) {
  event.preventDefault();
  const order = {
    document: $("issue-document").value,
    count: Number($("issue-count").value),
    expiresIn: Number($("issue-days").value) * 86400,
    uses: Number($("issue-uses").value),
  };
  const label = $("issue-label").value.trim();
  if (label) order.label = label;
  const answer = await call("POST", "applications/" + segment(currentApp) + "/codes", order);
  const list = $("issued-list");
  list.replaceChildren();
  for (const code of answer.codes) {
    const item = document.createElement("li");
    item.className = "issued";
    if (code.qrSVG) {
      const image = document.createElement("img");
      image.className = "qr";
      image.alt = "QR code of the onboarding code";
      image.src = "data:image/svg+xml;base64," + btoa(code.qrSVG);
      item.appendChild(image);
    }
    const text = document.createElement("div");
    text.className = "issued-code";
    text.textContent = code.code;
    item.appendChild(text);
    const details = document.createElement("div");
    details.className = "issued-label";
    details.textContent = (code.label || "") + " (id " + code.id + ", until " + code.expiresAt + ")";
    item.appendChild(details);
    list.appendChild(item);
  }
  $("issued").hidden = false;
  await loadCodes();
  await loadApps();
}

async function signIn(event) {
  if (event) event.preventDefault();
  showError("");
  const field = $("token");
  if (field.value) sessionStorage.setItem("activate-admin-token", field.value);
  field.value = "";
  if (!token()) return;
  try {
    await loadApps();
    $("sign-in-panel").hidden = true;
    $("console").hidden = false;
    $("sign-out").hidden = false;
  } catch (e) {
    showError(e.message);
  }
}

function signOut() {
  sessionStorage.removeItem("activate-admin-token");
  currentApp = null;
  $("console").hidden = true;
  $("app-panel").hidden = true;
  $("sign-out").hidden = true;
  $("sign-in-panel").hidden = false;
  $("issued-list").replaceChildren();
}

document.addEventListener("DOMContentLoaded", () => {
  $("sign-in-form").addEventListener("submit", signIn);
  $("sign-out").addEventListener("click", signOut);
  $("issue-form").addEventListener("submit", e => issue(e).catch(error => showError(error.message)));
  $("code-status").addEventListener("change", () => loadCodes().catch(e => showError(e.message)));
  $("settings-form").addEventListener("submit", e => saveSettings(e).catch(error => showError(error.message)));
  $("settings-delete").addEventListener("click", () => deleteSettings().catch(e => showError(e.message)));
  if (token()) signIn();
});

