import os, requests
key = os.environ['SERVICE_API_KEY']
print(requests.get('https://api.example.com', headers={'x-key': key}).json())
