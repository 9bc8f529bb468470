import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Route, linkTo, readRoute } from './route.js';
import { SearchPage } from './pages/search.js';
import { SessionPage } from './pages/session.js';
import { TimelinePage } from './pages/timeline.js';
import { MemoryPage } from './pages/memory.js';
import { FixesPage } from './pages/fixes.js';
import { UsagePage } from './pages/usage.js';

const PAGES: { page: Route['page']; label: string }[] = [
  { page: 'timeline', label: 'Timeline' },
  { page: 'search', label: 'Search' },
  { page: 'memory', label: 'Memory' },
  { page: 'fixes', label: 'Fixes' },
  { page: 'usage', label: 'Usage' },
];

function App() {
  const [route, setRoute] = useState<Route>(readRoute());
  useEffect(() => {
    const onHash = () => setRoute(readRoute());
    addEventListener('hashchange', onHash);
    // `/` anywhere but in a field goes to the search box, as in many tools people use.
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable)) return;
      event.preventDefault();
      if (readRoute().page !== 'search') location.hash = linkTo('search');
      setTimeout(() => document.querySelector<HTMLInputElement>('input[type="search"]')?.focus(), 0);
    };
    addEventListener('keydown', onKey);
    return () => {
      removeEventListener('hashchange', onHash);
      removeEventListener('keydown', onKey);
    };
  }, []);
  return (
    <>
      <header class="top">
        <a class="brand" href={linkTo('timeline')}>
          moon
        </a>
        <nav class="pages" aria-label="Pages">
          {PAGES.map(({ page, label }) => (
            <a key={page} href={linkTo(page)} aria-current={route.page === page ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
      </header>
      <main>
        {route.page === 'session' && route.arg ? (
          <SessionPage key={route.arg} id={route.arg} at={route.params.get('at')} />
        ) : route.page === 'search' ? (
          <SearchPage params={route.params} />
        ) : route.page === 'memory' ? (
          <MemoryPage />
        ) : route.page === 'fixes' ? (
          <FixesPage />
        ) : route.page === 'usage' ? (
          <UsagePage />
        ) : (
          <TimelinePage params={route.params} />
        )}
      </main>
    </>
  );
}

const root = document.getElementById('app')!;
// The page's own "Loading" line goes: Preact renders into an empty element.
root.textContent = '';
render(<App />, root);
