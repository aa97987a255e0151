export interface AccountRecord {
  id: string;
  name: string;
  createdAt: Date;
  /** Keys not deleted. */
  activeKeys: number;
}
