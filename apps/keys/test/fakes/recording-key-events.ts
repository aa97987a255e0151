import { KeyEvents } from '../../src/keys/key-events';

export class RecordingKeyEvents extends KeyEvents {
  readonly revokedIds: string[][] = [];

  revoked(ids: string[]): void {
    this.revokedIds.push(ids);
  }
}
