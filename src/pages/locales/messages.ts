/**
 * Every text the people's pages and mails show, in one language. A language is one file beside this
 * one (`en.ts`, `fr.ts`, ...) whose default export satisfies this interface; the server finds them at
 * start, and the type check tells what a new one lacks.
 */
export interface Messages {
  /** The language's name in itself, for the account page's choice of language. */
  languageName: string;

  signIn: {
    title: (organization: string) => string;
    email: string;
    password: string;
    submit: string;
    forgotPassword: string;
    cancel: (application: string) => string;
    confirmApplication: (application: string) => string;
    continue: string;
    refused: string;
    throttled: (minutes: number) => string;
    signedOut: string;
    passwordChanged: string;
  };
  account: {
    title: string;
    signedInAs: (name: string) => string;
    profile: string;
    firstName: string;
    lastName: string;
    language: string;
    languageDefault: string;
    email: string;
    emailHint: string;
    accountType: string;
    accountTypes: { learner: string; courseAdministrator: string; organizationAdministrator: string };
    lastSignIn: string;
    save: string;
    saved: string;
    details: string;
    detailsHint: string;
    noDetails: string;
    password: string;
    currentPassword: string;
    newPassword: string;
    confirmPassword: string;
    changePassword: string;
    wrongPassword: string;
    passwordsDiffer: string;
    agreements: string;
    agreedOn: (date: string) => string;
    notAgreed: string;
    noAgreements: string;
    sessions: string;
    signOut: string;
    signOutEverywhere: string;
    signOutEverywhereHint: string;
  };
  required: {
    title: string;
    intro: string;
    newPassword: string;
    newPasswordHint: string;
    fields: string;
    agreements: string;
    accept: (title: string) => string;
    mustAccept: string;
    continue: string;
  };
  fields: {
    required: string;
    choose: string;
    yes: string;
    no: string;
    true: string;
    false: string;
    dateHint: string;
    notANumber: string;
    notAnInteger: string;
  };
  reset: {
    forgotTitle: string;
    forgotIntro: string;
    send: string;
    sent: string;
    title: string;
    set: string;
    invalid: string;
    done: string;
    mailSubject: (organization: string) => string;
    mailBody: (organization: string, link: string, minutes: number) => string;
  };
  invitation: {
    mailSubject: (organization: string) => string;
    mailBody: (organization: string, link: string, minutes: number) => string;
  };
  signOut: {
    confirmTitle: (organization: string) => string;
    confirm: string;
    stay: string;
    done: string;
  };
  errors: {
    notFoundTitle: string;
    notFound: string;
    forbiddenTitle: string;
    expiredForm: string;
    tooLarge: string;
    badRequest: string;
    somethingWrong: string;
    tryAgain: string;
    signInFailed: string;
  };
}
