#!/usr/bin/env python3

# The Python client printed on the Kimble server page, unchanged except:
# HOST -> 127.0.0.1 and PORT from the first argument (default 65430).
import socket
import sys


HOST = '127.0.0.1'
PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 65430


def hahmota_pelitilanne(pelilauta):
    '''
    Pelaajan A sisääntulo luoteisessa.
    '''
    if len(pelilauta)<46:
        return
    
    noppa=pelilauta[-1]
    vuorossa=pelilauta[-2]
    
    #A:n ja B:n maalit    
    print (        pelilauta[31] + " "*14 +pelilauta[35])
    print (" "   + pelilauta[30] + " "*12 +pelilauta[34])
    print ("  "  + pelilauta[29] + " "*10 +pelilauta[33])
    print ("   " + pelilauta[28] + " "*8  +pelilauta[32])


    #Piirretään nopan heitto laudan keskelle.
    #Tyhjä tila on 6*6. Piirretään siihen vuorossa olevan kirjain+nopan heitto
    laudan_keskus=[" "*6]*6
    laudan_keskus[2]="  "+vuorossa+"   "
    laudan_keskus[3]="   "+noppa+"  "

    
    print ("    " + pelilauta[0:8])
    for i in range(0,6):
        print ("    " + pelilauta[27-i] + laudan_keskus[i] + pelilauta[8+i])

    alarivi=pelilauta[14:22]
    print ("    " + alarivi[::-1])	#takaperin

    #D:n ja C:n maalit
    print ("   " + pelilauta[40] + " "*8  +pelilauta[36])
    print ("  "  + pelilauta[41] + " "*10 +pelilauta[37])
    print (" "   + pelilauta[42] + " "*12 +pelilauta[38])
    print (        pelilauta[43] + " "*14 +pelilauta[39])


#http://code.activestate.com/recipes/408859-socketrecv-three-ways-to-turn-it-into-recvall/
def recv_end(the_socket):
    total_data=[];data=''
    while True:
            data=the_socket.recv(8192).decode('UTF-8') 
            if "END" in data:
                total_data.append(data[:data.find("END")])
                break
            total_data.append(data)
            if len(total_data)>1:
                #check if end_of_data was split
                last_pair=total_data[-2]+total_data[-1]
                if "END" in last_pair:
                    total_data[-2]=last_pair[:last_pair.find("END")]
                    total_data.pop()
                    break
    return ''.join(total_data)


def pelaa(HOST, PORT):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        for i in range(10):
            try:
                s.connect((HOST, PORT))
                print("Server found in port "+str(PORT))
                break
            except OSError:
                PORT=PORT+1
            
        #Ensin pitää lähettää "v" ja versionumero XXX (001), ja sitten vastustajien 'vaikeustaso' 0=ei pelaa, 1=helppo, 2=vaikea
        s.sendall("v001222\n".encode())
        received=recv_end(s)
        
        if "Virhe" in received:
            print("Ei onnistunut pelin aloittaminen: "+received)
            return        
        rows = received.split("\n") #Jaetaan vastaus rivinvaihdosta riveihin

        #Vastauksessa tulee ekalla rivillä pelitoken mikä pitää ottaa talteen ja lähettää kaikissa seuraavissa viesteissä    
        token=rows[0] #token alkaa aina t-kirjaimella ja on 65 merkkiä pitkä
        
        print ("Sain tokenin="+token+"\n")
        rows=rows[1:] #Jätetään eka rivi pois, koska se oli pelitoken
        
        while True:
            #jokaisella rivillä on yksi pelitilanne
            for r in rows:
                #print("DEBUG: rivi='"+r+"'")        #yhdellä rivillä
                if "Voittaja" in r:
                    print("Peli ohi, "+r+" \n")
                    return
                else:
                    #print("rivi='"+r+"'")        #yhdellä rivillä
                    hahmota_pelitilanne(r)        #laudan muodossa                    
                print ("----------------------------")

            valittu_nappi=input(" Mitä liikutat?\n") #jää odottamaan käyttäjän valintaa
            s.sendall((token+valittu_nappi).encode())
            received=recv_end(s)
            rows = received.split("\n")

lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
pelaa(HOST, PORT)
