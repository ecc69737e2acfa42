import os, requests
key = os.environ['OPENAI_API_KEY']
requests.post('https://api.example.com/v1', headers={'Authorization': key})
