// The page frame: header, skip link, flash notice. Rendered on the server; hono/jsx escapes text.
import type { Child } from 'hono/jsx';
import { ADMIN_ASSETS } from '../assets.ts';

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}

export function Layout(props: { title: string; csrf?: string; flash?: Flash | null; children?: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>{`${props.title} · Quire`}</title>
        <link rel="icon" type="image/svg+xml" href={ADMIN_ASSETS.icon.path} />
        <link rel="stylesheet" href={ADMIN_ASSETS.css.path} />
        <script src={ADMIN_ASSETS.js.path} defer></script>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <div class="bar">
            <a class="brand" href="/admin">
              Quire
            </a>
            <span class="muted small">Publishing</span>
            {props.csrf ? (
              <form method="post" action="/admin/sign-out">
                <input type="hidden" name="_csrf" value={props.csrf} />
                <button type="submit">Sign out</button>
              </form>
            ) : null}
          </div>
        </header>
        <main id="main" tabindex={-1}>
          {props.flash ? (
            <div class={`notice ${props.flash.kind}`} role={props.flash.kind === 'error' ? 'alert' : 'status'}>
              {props.flash.text}
            </div>
          ) : null}
          {props.children}
        </main>
      </body>
    </html>
  );
}

export function CsrfField(props: { csrf: string }) {
  return <input type="hidden" name="_csrf" value={props.csrf} />;
}

export const formatTime = (ms: number | string | null): string => {
  if (ms === null) return '—';
  const d = typeof ms === 'number' ? new Date(ms) : new Date(ms);
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')
    .replace(/Z$/, ' UTC');
};
