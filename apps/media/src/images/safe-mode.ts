import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { Logger } from '@svc/logging';
import { NsfwClassifier } from './nsfw-classifier';

export interface SafeModeVerdict {
  /** Adult probability from the classifier, or null when none is loaded. */
  score: number | null;
  blur: boolean;
}

/**
 * Decides whether an output is blurred. With a classifier: blur when the adult probability reaches
 * the threshold (0 blurs everything). Without one (disabled or failed to load): blur everything,
 * so safe mode never lets an unchecked image through.
 *
 * The classifier loads once per process (`start`, awaited at boot by the app module; tfjs compiles
 * its WebAssembly and reads the weights in a few seconds); a check made earlier waits for it.
 */
export class SafeMode {
  private classifier: NsfwClassifier | null = null;
  private loading?: Promise<void>;

  constructor(
    private readonly load: () => Promise<NsfwClassifier | null>,
    /** Adult probability from which an output is blurred (and a moderated image flagged `sexual`). */
    readonly threshold: number,
    private readonly logger: Logger,
  ) {}

  get available(): boolean {
    return this.classifier !== null;
  }

  /** Starts loading the classifier (idempotent); resolves when it is loaded or has failed. */
  start(): Promise<void> {
    this.loading ??= this.load().then(
      (classifier) => {
        this.classifier = classifier;
      },
      (err: unknown) => {
        this.logger.error({ err: errorMessage(err) }, 'safe-mode classifier failed to load: safe mode blurs every output');
      },
    );
    return this.loading;
  }

  async check(rgb: Uint8Array, width: number, height: number, requestId: string): Promise<SafeModeVerdict> {
    await this.start();
    if (!this.classifier) return { score: null, blur: true };
    try {
      const score = await this.classifier.score(rgb, width, height);
      return { score, blur: score >= this.threshold };
    } catch (err) {
      this.logger.error({ requestId, err: errorMessage(err) }, 'safe-mode classifier failed; blurring');
      return { score: null, blur: true };
    }
  }

  /**
   * The adult probability of an image for `POST /moderations` (no blur decision): a 503 when no
   * classifier is loaded, since an unchecked image must not be reported as clean.
   */
  async score(rgb: Uint8Array, width: number, height: number): Promise<number> {
    await this.start();
    if (!this.classifier)
      throw new DomainError(
        ErrorCode.ServiceUnavailable,
        'The image classifier is not loaded on this server (SAFE_MODE_CLASSIFIER=off, or it failed to load).',
      );
    return this.classifier.score(rgb, width, height);
  }

  async close(): Promise<void> {
    await this.loading;
    await this.classifier?.close();
  }
}
