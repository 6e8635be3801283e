/*
 * What the signed-in pages' scripts share (plain script, after session-monitor.js): elements, times in the
 * browser's locale, status lines, a failed answer's detail, and a table row's button and request.
 */

interface PageKit {
  el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K];
  dateFormat: Intl.DateTimeFormat;
  timeCell(iso: string | null, empty?: string): HTMLTableCellElement;
  say(id: string, text: string, failed?: boolean): void;
  detailOf(body: unknown, fallback: string): string;
  rowButton(text: string, className: string, onClick: (button: HTMLButtonElement) => Promise<void>, describedBy?: string): HTMLButtonElement;
  rowRequest(button: HTMLButtonElement, path: string, init: PageApiRequest, ok: number[], statusId: string, failure: string): Promise<PageApiResult | null>;
}

interface Window {
  pageKit: PageKit;
}

(function pageKit() {
  const api = window.pageApi;

  function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

  function timeCell(iso: string | null, empty = 'Never'): HTMLTableCellElement {
    const cell = el('td');
    if (!iso) {
      cell.textContent = empty;
      return cell;
    }
    const time = el('time', dateFormat.format(new Date(iso)));
    time.dateTime = iso;
    cell.append(time);
    return cell;
  }

  /** Writes a message into a role=status element, styled as a failure or a success. */
  function say(id: string, text: string, failed = false): void {
    const node = document.getElementById(id);
    if (!node) return;
    node.textContent = text;
    node.classList.toggle('error', failed);
  }

  function detailOf(body: unknown, fallback: string): string {
    if (body && typeof body === 'object') {
      const record = body as Record<string, unknown>;
      if (typeof record.detail === 'string') return record.detail;
      const fields = Object.entries(record).filter(([, v]) => Array.isArray(v));
      if (fields.length) return fields.map(([k, v]) => `${k}: ${(v as string[]).join(' ')}`).join(' ');
    }
    return fallback;
  }

  /** A row's button; `describedBy` names the row's description, so each button's accessible name is unique. */
  function rowButton(text: string, className: string, onClick: (button: HTMLButtonElement) => Promise<void>, describedBy?: string): HTMLButtonElement {
    const button = el('button', text, className);
    button.type = 'button';
    if (describedBy) button.setAttribute('aria-describedby', describedBy);
    button.addEventListener('click', () => void onClick(button));
    return button;
  }

  /** A row's request, its button disabled meanwhile: the answer, or null (the button back, the failure said) when refused. */
  async function rowRequest(button: HTMLButtonElement, path: string, init: PageApiRequest, ok: number[], statusId: string, failure: string): Promise<PageApiResult | null> {
    button.disabled = true;
    const res = await api.request(path, init);
    if (ok.includes(res.status)) return res;
    button.disabled = false;
    say(statusId, detailOf(res.body, failure), true);
    return null;
  }

  window.pageKit = { el, dateFormat, timeCell, say, detailOf, rowButton, rowRequest };
})();
