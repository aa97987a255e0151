import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AddCharacterReviewRequest,
  CHARACTERS,
  CreateCharacterRequest,
  DeleteCharacterRequest,
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
  create(@Payload() request: CreateCharacterRequest) {
    return guarded(this.characters.create(request));
  }

  @MessagePattern(CHARACTERS.DELETE)
  delete(@Payload() request: DeleteCharacterRequest) {
    return guarded(this.characters.delete(request.slug));
  }

  @MessagePattern(CHARACTERS.ADD_REVIEW)
  addReview(@Payload() request: AddCharacterReviewRequest) {
    return guarded(this.characters.addReview(request));
  }
}
