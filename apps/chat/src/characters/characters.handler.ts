import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AddCharacterReviewRequest,
  CHARACTERS,
  characterWriterSchema,
  CreateCharacterRequest,
  DeleteCharacterRequest,
  DeleteCharacterReviewRequest,
  deleteCharacterReviewRequestSchema,
  GetCharacterRequest,
  ListCharacterReviewsRequest,
  ListCharactersRequest,
} from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { CharactersService } from './characters.service';

/** Database failures (down, timeout) are a 503, not an internal error. */
async function guarded<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw new DomainError(ErrorCode.ServiceUnavailable, 'Characters are unavailable right now. Try again shortly.');
  }
}

/** The account a write is for. Every write over NATS names one: the operator writes only through the CLI. */
const writerOf = (request: unknown): string => characterWriterSchema.parse(request).accountId;

/** CHARACTERS.* over NATS; the gateway has validated every payload. */
@Controller()
export class CharactersHandler {
  constructor(private readonly characters: CharactersService) {}

  @MessagePattern(CHARACTERS.LIST)
  list(@Payload() request: ListCharactersRequest) {
    return guarded(this.characters.list(request));
  }

  @MessagePattern(CHARACTERS.GET)
  get(@Payload() request: GetCharacterRequest) {
    return guarded(this.characters.get(request.slug));
  }

  @MessagePattern(CHARACTERS.LIST_REVIEWS)
  reviews(@Payload() request: ListCharacterReviewsRequest) {
    return guarded(this.characters.reviews(request));
  }

  @MessagePattern(CHARACTERS.CREATE)
  create(@Payload() { accountId, ...input }: CreateCharacterRequest) {
    return guarded(this.characters.create(input, writerOf({ accountId })));
  }

  @MessagePattern(CHARACTERS.DELETE)
  delete(@Payload() request: DeleteCharacterRequest) {
    return guarded(this.characters.delete(request.slug, writerOf(request)));
  }

  @MessagePattern(CHARACTERS.ADD_REVIEW)
  addReview(@Payload() { slug, accountId, ...review }: AddCharacterReviewRequest) {
    return guarded(this.characters.addReview(slug, review, writerOf({ accountId })));
  }

  @MessagePattern(CHARACTERS.DELETE_REVIEW)
  deleteReview(@Payload() request: DeleteCharacterReviewRequest) {
    const { slug, reviewId, accountId } = deleteCharacterReviewRequestSchema.parse(request);
    return guarded(this.characters.deleteReview(slug, reviewId, accountId));
  }
}
