import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A third-party catalogue; its id is the course type its items become. Shared by the accounts it names. */
@Entity({ schema: 'catalog', name: 'markets' })
export class Market {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** The accounts that see this market; null: every account. */
  @Column({ name: 'account_ids', type: 'integer', array: true, nullable: true })
  accountIds: number[] | null;

  @Column({ name: 'loaded_at', type: 'timestamptz' })
  loadedAt: Date;
}

/** One course of a third-party catalogue; `id` is its third-party course id. */
@Entity({ schema: 'catalog', name: 'market_items' })
export class MarketItem {
  @PrimaryColumn({ name: 'market_id', type: 'text' })
  marketId: string;

  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'estimated_time', type: 'integer', nullable: true })
  estimatedTime: number | null;

  @Column({ type: 'text', nullable: true })
  language: string | null;

  @Column({ name: 'thumbnail_url', type: 'text', nullable: true })
  thumbnailUrl: string | null;

  /** Where the vendor plays the item: the `launch_url` answer of the courses made from it. */
  @Column({ name: 'launch_url', type: 'text', nullable: true })
  launchUrl: string | null;
}
