import ActivationDiscoveryProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// The console at `/admin/`: one page, its script and its style, served from memory (no build
/// step, no CDN). It signs in with an admin token kept in `sessionStorage` and sent as a header
/// (no cookie, so no cross-site request can act with it), and speaks the admin API like any
/// client. Every value from the service is put into the page as text (`textContent`), never as
/// markup; the Content-Security-Policy allows scripts and styles from this origin only, images
/// from here and `data:` (the QR codes), and requests to this origin only.
enum AdminConsole {
    /// The policy every console file is sent with.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The file `name` below `/admin/` (`""` is the page), or 404.
    static func response(for name: String) -> Response {
        let file: (type: String, text: String)
        switch name {
        case "", "index.html": file = ("text/html; charset=utf-8", page)
        case "console.js": file = ("text/javascript; charset=utf-8", script)
        case "console.css": file = ("text/css; charset=utf-8", style)
        default: return DiscoveryServer.error(.notFound, .notFound, "no such console file")
        }
        return Response(status: .ok, headers: [
            .contentType: file.type,
            .contentSecurityPolicy: contentSecurityPolicy,
            .xContentTypeOptions: "nosniff",
            .referrerPolicy: "no-referrer",
            .xFrameOptions: "DENY",
            .cacheControl: "no-store",
        ], body: .init(byteBuffer: ByteBuffer(string: file.text)))
    }

    static let page = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>activate discovery console</title>
        <link rel="stylesheet" href="/admin/console.css">
        <script src="/admin/console.js" defer></script>
        </head>
        <body>
        <header><h1>Discovery console</h1><button id="sign-out" hidden>Sign out</button></header>
        <p id="error" role="alert" hidden></p>
        <section id="sign-in-panel">
          <h2>Sign in</h2>
          <form id="sign-in-form">
            <label for="token">Admin token</label>
            <input id="token" type="password" autocomplete="off" required>
            <button id="sign-in" type="submit">Sign in</button>
          </form>
          <p class="hint">The token stays in this tab only and is sent as a header.</p>
        </section>
        <main id="console" hidden>
          <section><h2>Applications</h2><table id="apps"><thead><tr><th>Application</th><th>Documents</th><th>Domains</th><th>Active codes</th><th>Client policies</th></tr></thead><tbody></tbody></table></section>
          <div id="app-panel" hidden>
            <h2 id="app-title"></h2>
            <section><h3>Documents</h3><table id="documents"><thead><tr><th>Name</th><th>Host</th><th>Sign-in</th><th>Warnings</th><th>Updated</th></tr></thead><tbody></tbody></table></section>
            <section><h3>E-mail domains</h3><table id="domains"><thead><tr><th>Domain</th><th>Document</th></tr></thead><tbody></tbody></table></section>
            <section>
              <h3>Issue codes</h3>
              <form id="issue-form">
                <label for="issue-document">Document</label><select id="issue-document" required></select>
                <label for="issue-count">Count</label><input id="issue-count" type="number" min="1" max="1000" value="1" required>
                <label for="issue-days">Valid for (days)</label><input id="issue-days" type="number" min="1" max="366" value="7" required>
                <label for="issue-uses">Uses</label><input id="issue-uses" type="number" min="1" value="1" required>
                <label for="issue-label">Label</label><input id="issue-label" type="text" maxlength="200">
                <button id="issue" type="submit">Issue</button>
              </form>
              <div id="issued" hidden><p class="warning">These codes are shown only now: hand them out or print this page.</p><ul id="issued-list"></ul></div>
            </section>
            <section>
              <h3>Client policies</h3>
              <p class="hint">SAP's settingsExchange JSON (passwordPolicy, blockWipingPolicy, …), served to the app at its settingsExchange path.</p>
              <form id="settings-form">
                <label for="settings-json">settingsExchange</label>
                <textarea id="settings-json" rows="12" spellcheck="false" placeholder='{"passwordPolicy": {"passwordPolicyEnabled": "true", "passwordPolicyMinLength": "8"}}'></textarea>
                <button id="settings-save" type="submit">Save policies</button>
              </form>
              <p id="settings-status" class="hint"></p>
              <button id="settings-delete" type="button" hidden>Remove policies</button>
            </section>
            <section><h3>Codes</h3>
              <label for="code-status">Show</label>
              <select id="code-status"><option value="">all</option><option>active</option><option>used</option><option>expired</option><option>revoked</option></select>
              <table id="codes"><thead><tr><th>Id</th><th>Status</th><th>Uses left</th><th>Document</th><th>Label</th><th>Expires</th><th></th></tr></thead><tbody></tbody></table>
            </section>
          </div>
        </main>
        </body>
        </html>

        """#

    static let script = #"""
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

        """#

    static let style = #"""
        body { font: 14px system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem; color: #1d1d1f; }
        header { display: flex; justify-content: space-between; align-items: center; border-bottom: 1px solid #ccc; }
        h1 { font-size: 1.3rem; } h2 { font-size: 1.1rem; margin-top: 1.5rem; } h3 { font-size: 1rem; margin-top: 1.2rem; }
        table { border-collapse: collapse; width: 100%; margin: 0.4rem 0; }
        th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid #e3e3e3; vertical-align: top; overflow-wrap: anywhere; }
        th { font-weight: 600; background: #f5f5f7; }
        form { display: grid; grid-template-columns: max-content minmax(10rem, 24rem); gap: 0.4rem 0.8rem; align-items: center; }
        form button { grid-column: 2; justify-self: start; }
        textarea { font: 0.85rem ui-monospace, monospace; width: 100%; }
        button { font: inherit; padding: 0.25rem 0.8rem; cursor: pointer; }
        button.app { background: none; border: none; color: #0a58ca; padding: 0; text-decoration: underline; }
        #error { background: #fde8e8; border: 1px solid #e0a0a0; padding: 0.5rem; }
        .hint { color: #666; }
        .warning { font-weight: 600; color: #8a4b00; }
        #issued-list { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 1rem; }
        .issued { border: 1px solid #ccc; border-radius: 4px; padding: 0.6rem; text-align: center; width: 14rem; }
        .issued img { width: 10rem; image-rendering: pixelated; }
        .issued-code { font: bold 1.1rem ui-monospace, monospace; letter-spacing: 0.05em; }
        .issued-label { color: #555; font-size: 0.85rem; overflow-wrap: anywhere; }

        """#
}

extension HTTPField.Name {
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let xFrameOptions = Self("X-Frame-Options")!
}
