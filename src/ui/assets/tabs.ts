/*
 * The pages' tabs (WAI-ARIA tabs pattern: click, arrow keys, Home and End; the selected tab in the URL's hash),
 * shared by /accounts/profile/ and /accounts/admin/. A page starts them with the loaders of its tabs; a tab's
 * loader runs each time it is selected (other scripts may add theirs to `window.tabLoaders`).
 */

interface Window {
  pageTabs: { start(loaders: Record<string, () => Promise<void>>): void };
}

window.pageTabs = {
  start(loaders) {
    const tabs = Array.from(document.querySelectorAll<HTMLButtonElement>('[role="tab"]'));

    function select(tab: HTMLButtonElement, focus: boolean): void {
      for (const other of tabs) {
        const selected = other === tab;
        other.setAttribute('aria-selected', String(selected));
        other.tabIndex = selected ? 0 : -1;
        document.getElementById(other.getAttribute('aria-controls')!)!.hidden = !selected;
      }
      if (focus) tab.focus();
      const name = tab.dataset.tab!;
      history.replaceState(null, '', `#${name}`);
      void (loaders[name] ?? window.tabLoaders?.[name])?.();
    }

    for (const tab of tabs) {
      tab.addEventListener('click', () => select(tab, false));
      tab.addEventListener('keydown', (e) => {
        const i = tabs.indexOf(tab);
        const target = {
          ArrowRight: tabs[(i + 1) % tabs.length],
          ArrowLeft: tabs[(i - 1 + tabs.length) % tabs.length],
          Home: tabs[0],
          End: tabs[tabs.length - 1],
        }[e.key];
        if (!target) return;
        e.preventDefault();
        select(target, true);
      });
    }
    const fromHash = tabs.find((t) => `#${t.dataset.tab}` === location.hash);
    if (tabs.length) select(fromHash ?? tabs[0], false);
  },
};
