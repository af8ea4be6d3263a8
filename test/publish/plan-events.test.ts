import { describe, expect, it } from 'vitest';
import { collapseEvents, planEvents } from '../../src/publish/plan-events.ts';
import type { RecordedArticle } from '../../src/store/state-store.ts';

const rec = (entries: [string, RecordedArticle][]) => new Map(entries);
const pub = (payloadHash: string): RecordedArticle => ({ state: 'published', payloadHash });

describe('planEvents', () => {
  it('first publish: every published article is `published`', () => {
    const plan = planEvents(
      new Map([
        ['a', 'h1'],
        ['b', 'h2'],
      ]),
      new Set(['d']),
      null,
      { extraEvents: false },
    );
    expect(plan.events).toEqual([
      { slug: 'a', event: 'published' },
      { slug: 'b', event: 'published' },
    ]);
    expect(plan.changes).toEqual([
      { slug: 'a', state: 'published', payloadHash: 'h1' },
      { slug: 'b', state: 'published', payloadHash: 'h2' },
    ]);
  });

  it('new → published, changed payload → updated, same payload → nothing', () => {
    const plan = planEvents(
      new Map([
        ['same', 'h1'],
        ['edited', 'h2-new'],
        ['new', 'h3'],
      ]),
      new Set(),
      rec([
        ['same', pub('h1')],
        ['edited', pub('h2')],
      ]),
      { extraEvents: false },
    );
    expect(plan.events).toEqual([
      { slug: 'edited', event: 'updated' },
      { slug: 'new', event: 'published' },
    ]);
    expect(plan.changes.map((c) => c.slug)).toEqual(['edited', 'new']);
  });

  it('withdrawn and deleted are recorded but sent only to webhooks that opted in', () => {
    const recorded = rec([
      ['gone', pub('h1')],
      ['drafted', pub('h2')],
      ['old', { state: 'deleted', payloadHash: null }],
    ]);
    const quiet = planEvents(new Map(), new Set(['drafted']), recorded, { extraEvents: false });
    expect(quiet.events).toEqual([]);
    expect(quiet.changes).toEqual([
      { slug: 'gone', state: 'deleted', payloadHash: null },
      { slug: 'drafted', state: 'withdrawn', payloadHash: null },
    ]);
    const loud = planEvents(new Map(), new Set(['drafted']), recorded, { extraEvents: true });
    expect(loud.events).toEqual([
      { slug: 'gone', event: 'deleted' },
      { slug: 'drafted', event: 'unpublished' },
    ]);
    // Counted, so the run can say what the receiver was not told.
    expect(quiet.notSent).toEqual({ withdrawn: 1, deleted: 1 });
    expect(loud.notSent).toEqual({ withdrawn: 0, deleted: 0 });
  });

  it('published again after being withdrawn is `published`, even with the same payload', () => {
    const plan = planEvents(
      new Map([['back', 'h1']]),
      new Set(),
      rec([['back', { state: 'withdrawn', payloadHash: null }]]),
      { extraEvents: false },
    );
    expect(plan.events).toEqual([{ slug: 'back', event: 'published' }]);
  });
});

describe('collapseEvents', () => {
  it('a receiver not yet told `published` hears `published` with the latest payload', () => {
    expect(collapseEvents('published', 'updated')).toBe('published');
    expect(collapseEvents('updated', 'updated')).toBe('updated');
    expect(collapseEvents(null, 'updated')).toBe('updated');
    expect(collapseEvents('updated', 'deleted')).toBe('deleted');
  });
});
