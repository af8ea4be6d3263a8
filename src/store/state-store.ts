// The state store as one object: the database and the repositories over it.
import { openStateDb, type StateDb } from './database.ts';
import { createOutbox, type Outbox } from './outbox.ts';
import { createPublishState, type PublishState } from './publish-state.ts';
import { createSecretBox } from './secret-box.ts';
import { createWebhookStore, type WebhookStore } from './webhooks.ts';

export interface StateStore {
  db: StateDb;
  webhooks: WebhookStore;
  outbox: Outbox;
  published: PublishState;
  close(): void;
}

export function openStateStore(stateDir: string, serverSecret: string): StateStore {
  const db = openStateDb(stateDir);
  return {
    db,
    webhooks: createWebhookStore(db, createSecretBox(serverSecret)),
    outbox: createOutbox(db),
    published: createPublishState(db),
    close: () => db.close(),
  };
}
