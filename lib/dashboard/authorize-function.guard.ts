import { CanActivate, ExecutionContext } from '@nestjs/common';
import { DashboardAuthorizeFunction } from './interfaces/queue-dashboard-options.interface';

/** Turns the `authorize` option into a guard, so a function and the app's guards run through the same Nest path. */
export function authorizeFunctionGuard(authorize: DashboardAuthorizeFunction): CanActivate {
  return {
    canActivate: async (context: ExecutionContext) => (await authorize(context.switchToHttp().getRequest(), context)) === true,
  };
}
