import { identity, type MonoTypeOperatorFunction } from 'rxjs';

/** An operator the entry asks for, or the identity when it does not. */
export function optional<T>(operator: MonoTypeOperatorFunction<T> | false | undefined): MonoTypeOperatorFunction<T> {
  return operator || identity;
}
