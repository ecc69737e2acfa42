const p = 'Y29uc29sZS5sb2coMSk=';
eval(atob(p));
